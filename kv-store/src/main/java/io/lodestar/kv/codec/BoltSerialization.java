package io.lodestar.kv.codec;

import com.alipay.remoting.serialization.SerializerManager;

/**
 * Holds what bolt (JRaft's transport) decodes with Hessian in this JVM to an allowlist, so that a
 * peer, or anything answering on a peer's port, cannot make this node instantiate classes of its
 * choosing by naming them in a response.
 */
public final class BoltSerialization {
    private BoltSerialization() {}

    /**
     * Puts {@link BoltErrorSerializer} in bolt's Hessian 2 slot, the only serializer slot bolt fills
     * (a response naming any other slot fails to decode). Idempotent and thread-safe. Call it
     * before any bolt client or server of this JVM starts: a response decoded before it returns may
     * still have used bolt's unrestricted default.
     */
    public static synchronized void restrict() {
        // Reading the slot first makes bolt fill it now if empty: bolt fills an empty slot with its
        // default, under its own lock, and never touches a filled one, so it cannot undo this later.
        if (SerializerManager.getSerializer(SerializerManager.Hessian2) != BoltErrorSerializer.INSTANCE) {
            SerializerManager.addSerializer(SerializerManager.Hessian2, BoltErrorSerializer.INSTANCE);
        }
    }
}
