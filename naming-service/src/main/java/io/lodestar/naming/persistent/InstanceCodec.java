package io.lodestar.naming.persistent;

import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The stored form of a persistent instance: a version byte, then id, weight, enabled, healthy and
 * metadata. Cluster, ip and port live in the key ({@link StoreKeys#instance}), not here.
 */
final class InstanceCodec {
    private static final byte VERSION = 1;

    private InstanceCodec() {}

    static byte[] encode(Instance i) {
        try (FieldOutput out = new FieldOutput(64)) {
            out.writeByte(VERSION);
            out.writeOptionalString(i.instanceId());
            out.writeDouble(i.weight());
            out.writeBoolean(i.enabled());
            out.writeBoolean(i.healthy());
            out.writeMap(i.metadata());
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Instance decode(InstanceAddress address, byte[] stored) {
        try (FieldInput in = new FieldInput(stored)) {
            byte version = in.readByte("version");
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored instance version " + version + " at " + address);
            }
            String id = in.readOptionalString("instanceId");
            double weight = in.readDouble("weight");
            boolean enabled = in.readBoolean("enabled");
            boolean healthy = in.readBoolean("healthy");
            return new Instance(
                    id,
                    address.ip(),
                    address.port(),
                    weight,
                    enabled,
                    healthy,
                    false,
                    address.cluster(),
                    in.readMap("metadata"));
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored instance at " + address, e);
        }
    }
}
