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
 * The stored form of a service definition: a version byte, the protect threshold, metadata, then
 * each cluster's health-check settings. Checker types are written as fixed codes, not ordinals, so
 * reordering the enum cannot change stored meaning.
 */
final class ServiceSpecCodec {
    private static final byte VERSION = 1;

    private ServiceSpecCodec() {}

    static byte[] encode(ServiceSpec spec) {
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
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static ServiceSpec decode(byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored service version " + version);
            }
            double threshold = in.readDouble();
            Map<String, String> metadata = Fields.readMap(in);
            int n = in.readInt();
            Map<String, HealthCheckSettings> clusters = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = Fields.readString(in);
                CheckerType type = type(in.readByte());
                clusters.put(name, new HealthCheckSettings(type, Fields.readString(in), in.readInt(), in.readBoolean(),
                        Fields.readString(in)));
            }
            return new ServiceSpec(threshold, metadata, clusters);
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
