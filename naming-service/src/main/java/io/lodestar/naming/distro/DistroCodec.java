package io.lodestar.naming.distro;

import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.ServiceKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The binary forms of Distro's messages: a version byte, then fields in a fixed order (strings
 * length-prefixed UTF-8, maps as counted pairs). Plain data only, decoded field by field: nothing
 * from the network picks a class. A copy carries no checksum: its receiver computes one.
 */
final class DistroCodec {
    private static final byte VERSION = 4;

    private DistroCodec() {}

    /** Writes one message body. */
    interface Writer {
        void write(FieldOutput out) throws IOException;
    }

    /** Reads one message body. */
    interface Reader<T> {
        T read(FieldInput in) throws IOException;
    }

    static byte[] encode(Writer writer) {
        try (FieldOutput out = new FieldOutput(256)) {
            out.writeByte(VERSION);
            writer.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes, or {@link IllegalArgumentException} naming what is wrong (a peer of another version, a cut frame). */
    static <T> T decode(byte[] body, Reader<T> reader) {
        try (FieldInput in = new FieldInput(body)) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalArgumentException(
                        "Distro message version " + version + ", this node speaks " + VERSION);
            }
            return reader.read(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed Distro message: " + e, e);
        }
    }

    static void writeKey(FieldOutput out, ServiceKey key) throws IOException {
        out.writeString(key.namespace());
        out.writeString(key.group());
        out.writeString(key.service());
    }

    static ServiceKey readKey(FieldInput in) throws IOException {
        return new ServiceKey(in.readString("namespace"), in.readString("group"), in.readString("service"));
    }

    static void writeAddress(FieldOutput out, InstanceAddress a) throws IOException {
        out.writeString(a.cluster());
        out.writeString(a.ip());
        out.writeInt(a.port());
    }

    static InstanceAddress readAddress(FieldInput in) throws IOException {
        return new InstanceAddress(in.readString("cluster"), in.readString("ip"), in.readInt("port"));
    }

    static void writeInstance(FieldOutput out, Instance i) throws IOException {
        out.writeOptionalString(i.instanceId());
        out.writeString(i.ip());
        out.writeInt(i.port());
        out.writeDouble(i.weight());
        out.writeBoolean(i.enabled());
        out.writeBoolean(i.healthy());
        out.writeBoolean(i.ephemeral());
        out.writeString(i.cluster());
        out.writeMap(i.metadata());
    }

    static Instance readInstance(FieldInput in) throws IOException {
        return new Instance(
                in.readOptionalString("instanceId"),
                in.readString("ip"),
                in.readInt("port"),
                in.readDouble("weight"),
                in.readBoolean("enabled"),
                in.readBoolean("healthy"),
                in.readBoolean("ephemeral"),
                in.readString("cluster"),
                in.readMap("metadata"));
    }

    /**
     * Copies: per service its key, then per address the version, a live flag and either the
     * instance with its holder (optional) or the address.
     */
    static void writeCopies(FieldOutput out, List<ServiceCopy> copies) throws IOException {
        out.writeInt(copies.size());
        for (ServiceCopy c : copies) {
            writeKey(out, c.service());
            out.writeInt(c.entries().size());
            for (ServiceCopy.Entry e : c.entries()) {
                out.writeLong(e.version());
                out.writeBoolean(e.live());
                if (e.live()) {
                    writeInstance(out, e.instance());
                    out.writeOptionalString(e.holder());
                } else {
                    writeAddress(out, e.address());
                }
            }
        }
    }

    static List<ServiceCopy> readCopies(FieldInput in) throws IOException {
        int n = count(in);
        List<ServiceCopy> out = new ArrayList<>(n);
        for (int s = 0; s < n; s++) {
            ServiceKey key = readKey(in);
            int m = count(in);
            List<ServiceCopy.Entry> entries = new ArrayList<>(m);
            for (int i = 0; i < m; i++) {
                long version = in.readLong();
                entries.add(
                        in.readBoolean()
                                ? ServiceCopy.Entry.live(readInstance(in), version, in.readOptionalString("holder"))
                                : ServiceCopy.Entry.removed(readAddress(in), version));
            }
            out.add(new ServiceCopy(key, entries));
        }
        return out;
    }

    static void writeChecksums(FieldOutput out, Map<ServiceKey, String> checksums) throws IOException {
        out.writeInt(checksums.size());
        for (Map.Entry<ServiceKey, String> e : checksums.entrySet()) {
            writeKey(out, e.getKey());
            out.writeString(e.getValue());
        }
    }

    static Map<ServiceKey, String> readChecksums(FieldInput in) throws IOException {
        int n = count(in);
        Map<ServiceKey, String> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            out.put(readKey(in), in.readString("checksum"));
        }
        return out;
    }

    /** Member addresses, in order (a sender's sorted view of the live members). */
    static void writeMembers(FieldOutput out, List<String> members) throws IOException {
        out.writeInt(members.size());
        for (String m : members) {
            out.writeString(m);
        }
    }

    static List<String> readMembers(FieldInput in) throws IOException {
        int n = count(in);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(in.readString("member"));
        }
        return out;
    }

    static void writeKeys(FieldOutput out, List<ServiceKey> keys) throws IOException {
        out.writeInt(keys.size());
        for (ServiceKey k : keys) {
            writeKey(out, k);
        }
    }

    static List<ServiceKey> readKeys(FieldInput in) throws IOException {
        int n = count(in);
        List<ServiceKey> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(readKey(in));
        }
        return out;
    }

    static void writePatch(FieldOutput out, InstancePatch p) throws IOException {
        out.writeBoolean(p.weight() != null);
        if (p.weight() != null) {
            out.writeDouble(p.weight());
        }
        out.writeBoolean(p.enabled() != null);
        if (p.enabled() != null) {
            out.writeBoolean(p.enabled());
        }
        out.writeBoolean(p.metadata() != null);
        if (p.metadata() != null) {
            out.writeMap(p.metadata());
        }
    }

    static InstancePatch readPatch(FieldInput in) throws IOException {
        Double weight = in.readBoolean() ? in.readDouble() : null;
        Boolean enabled = in.readBoolean() ? in.readBoolean() : null;
        Map<String, String> metadata = in.readBoolean() ? in.readMap("metadata") : null;
        return new InstancePatch(weight, enabled, metadata);
    }

    static void writeBeat(FieldOutput out, Optional<BeatInfo> beat) throws IOException {
        out.writeBoolean(beat.isPresent());
        if (beat.isPresent()) {
            BeatInfo b = beat.get();
            out.writeString(b.ip());
            out.writeInt(b.port());
            out.writeDouble(b.weight());
            out.writeOptionalString(b.cluster());
            out.writeMap(b.metadata());
            out.writeOptionalString(b.serviceName());
        }
    }

    static Optional<BeatInfo> readBeat(FieldInput in) throws IOException {
        if (!in.readBoolean()) {
            return Optional.empty();
        }
        return Optional.of(new BeatInfo(
                in.readString("beat ip"),
                in.readInt("beat port"),
                in.readDouble("beat weight"),
                in.readOptionalString("beat cluster"),
                in.readMap("beat metadata"),
                in.readOptionalString("beat serviceName")));
    }

    private static int count(FieldInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) { // every element takes at least one byte
            throw new IOException("bad element count " + n);
        }
        return n;
    }
}
