package io.lodestar.naming.persistent;

import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.ServiceSpec;
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
        try (FieldOutput out = new FieldOutput(64)) {
            out.writeByte(VERSION);
            out.writeDouble(spec.protectThreshold());
            out.writeMap(spec.metadata());
            out.writeInt(spec.clusters().size());
            for (Map.Entry<String, HealthCheckSettings> e : spec.clusters().entrySet()) {
                HealthCheckSettings h = e.getValue();
                out.writeString(e.getKey());
                out.writeByte(code(h.type()));
                out.writeString(h.httpPath());
                out.writeInt(h.checkPort());
                out.writeBoolean(h.useInstancePort());
                out.writeString(h.expectedCodes());
            }
            out.writeBoolean(defined);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Decoded decode(byte[] stored) {
        try (FieldInput in = new FieldInput(stored)) {
            byte version = in.readByte("version");
            if (version != VERSION && version != VERSION_1) {
                throw new IllegalStateException("unknown stored service version " + version);
            }
            double threshold = in.readDouble("protectThreshold");
            Map<String, String> metadata = in.readMap("metadata");
            int n = in.readInt("clusters count");
            Map<String, HealthCheckSettings> clusters = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = in.readString("cluster name");
                CheckerType type = type(in.readByte("checker type"));
                clusters.put(
                        name,
                        new HealthCheckSettings(
                                type,
                                in.readString("httpPath"),
                                in.readInt("checkPort"),
                                in.readBoolean("useInstancePort"),
                                in.readString("expectedCodes")));
            }
            ServiceSpec spec = new ServiceSpec(threshold, metadata, clusters);
            return new Decoded(
                    spec, version == VERSION_1 ? !spec.equals(ServiceSpec.DEFAULT) : in.readBoolean("defined"));
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
