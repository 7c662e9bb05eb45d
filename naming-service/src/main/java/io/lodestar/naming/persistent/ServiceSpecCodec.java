package io.lodestar.naming.persistent;

import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.ServiceSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored form of a service definition: a version byte, the protect threshold, metadata, each
 * cluster's health-check settings, then whether an operator defined it (version 2; a version-1
 * record counts as defined unless it is the default one a registration writes). Checker types are
 * written as fixed codes, not ordinals, so reordering the enum cannot change stored meaning.
 */
final class ServiceSpecCodec {
    private static final byte VERSION_1 = 1;
    private static final byte VERSION = 2;

    private ServiceSpecCodec() {}

    /** A decoded definition; {@code defined} when the service or cluster API wrote it, not only a registration. */
    record Decoded(ServiceSpec spec, boolean defined) {}

    static byte[] encode(ServiceSpec spec, boolean defined) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeDouble(spec.protectThreshold());
            Fields.writeMap(out, spec.metadata());
            out.writeInt(spec.clusters().size());
            for (Map.Entry<String, HealthCheckSettings> e : spec.clusters().entrySet()) {
                HealthCheckSettings h = e.getValue();
                Fields.writeString(out, e.getKey());
                out.writeByte(code(h.type()));
                Fields.writeString(out, h.httpPath());
                out.writeInt(h.checkPort());
                out.writeBoolean(h.useInstancePort());
                Fields.writeString(out, h.expectedCodes());
            }
            out.writeBoolean(defined);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Decoded decode(byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION && version != VERSION_1) {
                throw new IllegalStateException("unknown stored service version " + version);
            }
            double threshold = in.readDouble();
            Map<String, String> metadata = Fields.readMap(in);
            int n = in.readInt();
            Map<String, HealthCheckSettings> clusters = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = Fields.readString(in);
                CheckerType type = type(in.readByte());
                clusters.put(
                        name,
                        new HealthCheckSettings(
                                type, Fields.readString(in), in.readInt(), in.readBoolean(), Fields.readString(in)));
            }
            ServiceSpec spec = new ServiceSpec(threshold, metadata, clusters);
            return new Decoded(spec, version == VERSION_1 ? !spec.equals(ServiceSpec.DEFAULT) : in.readBoolean());
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt stored service", e);
        }
    }

    private static byte code(CheckerType type) {
        return switch (type) {
            case NONE -> 0;
            case TCP -> 1;
            case HTTP -> 2;
        };
    }

    private static CheckerType type(byte code) {
        return switch (code) {
            case 0 -> CheckerType.NONE;
            case 1 -> CheckerType.TCP;
            case 2 -> CheckerType.HTTP;
            default -> throw new IllegalStateException("unknown stored checker type " + code);
        };
    }
}
