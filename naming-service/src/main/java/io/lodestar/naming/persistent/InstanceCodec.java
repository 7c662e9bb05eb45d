package io.lodestar.naming.persistent;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            Fields.writeOptional(out, i.instanceId());
            out.writeDouble(i.weight());
            out.writeBoolean(i.enabled());
            out.writeBoolean(i.healthy());
            Fields.writeMap(out, i.metadata());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Instance decode(InstanceAddress address, byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored instance version " + version + " at " + address);
            }
            String id = Fields.readOptional(in);
            double weight = in.readDouble();
            boolean enabled = in.readBoolean();
            boolean healthy = in.readBoolean();
            return new Instance(
                    id,
                    address.ip(),
                    address.port(),
                    weight,
                    enabled,
                    healthy,
                    false,
                    address.cluster(),
                    Fields.readMap(in));
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored instance at " + address, e);
        }
    }
}
