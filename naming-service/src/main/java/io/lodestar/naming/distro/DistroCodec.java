package io.lodestar.naming.distro;

import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.persistent.Fields;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
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
        void write(DataOutputStream out) throws IOException;
    }

    /** Reads one message body. */
    interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    static byte[] encode(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            writer.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes, or {@link IllegalArgumentException} naming what is wrong (a peer of another version, a cut frame). */
    static <T> T decode(byte[] body, Reader<T> reader) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
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

    static void writeKey(DataOutputStream out, ServiceKey key) throws IOException {
        Fields.writeString(out, key.namespace());
        Fields.writeString(out, key.group());
        Fields.writeString(out, key.service());
    }

    static ServiceKey readKey(DataInputStream in) throws IOException {
        return new ServiceKey(Fields.readString(in), Fields.readString(in), Fields.readString(in));
    }

    static void writeAddress(DataOutputStream out, InstanceAddress a) throws IOException {
        Fields.writeString(out, a.cluster());
        Fields.writeString(out, a.ip());
        out.writeInt(a.port());
    }

    static InstanceAddress readAddress(DataInputStream in) throws IOException {
        return new InstanceAddress(Fields.readString(in), Fields.readString(in), in.readInt());
    }

    static void writeInstance(DataOutputStream out, Instance i) throws IOException {
        Fields.writeOptional(out, i.instanceId());
        Fields.writeString(out, i.ip());
        out.writeInt(i.port());
        out.writeDouble(i.weight());
        out.writeBoolean(i.enabled());
        out.writeBoolean(i.healthy());
        out.writeBoolean(i.ephemeral());
        Fields.writeString(out, i.cluster());
        Fields.writeMap(out, i.metadata());
    }

    static Instance readInstance(DataInputStream in) throws IOException {
        return new Instance(
                Fields.readOptional(in),
                Fields.readString(in),
                in.readInt(),
                in.readDouble(),
                in.readBoolean(),
                in.readBoolean(),
                in.readBoolean(),
                Fields.readString(in),
                Fields.readMap(in));
    }

    /**
     * Copies: per service its key, then per address the version, a live flag and either the
     * instance with its holder (optional) or the address.
     */
    static void writeCopies(DataOutputStream out, List<ServiceCopy> copies) throws IOException {
        out.writeInt(copies.size());
        for (ServiceCopy c : copies) {
            writeKey(out, c.service());
            out.writeInt(c.entries().size());
            for (ServiceCopy.Entry e : c.entries()) {
                out.writeLong(e.version());
                out.writeBoolean(e.live());
                if (e.live()) {
                    writeInstance(out, e.instance());
                    Fields.writeOptional(out, e.holder());
                } else {
                    writeAddress(out, e.address());
                }
            }
        }
    }

    static List<ServiceCopy> readCopies(DataInputStream in) throws IOException {
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
                                ? ServiceCopy.Entry.live(readInstance(in), version, Fields.readOptional(in))
                                : ServiceCopy.Entry.removed(readAddress(in), version));
            }
            out.add(new ServiceCopy(key, entries));
        }
        return out;
    }

    static void writeChecksums(DataOutputStream out, Map<ServiceKey, String> checksums) throws IOException {
        out.writeInt(checksums.size());
        for (Map.Entry<ServiceKey, String> e : checksums.entrySet()) {
            writeKey(out, e.getKey());
            Fields.writeString(out, e.getValue());
        }
    }

    static Map<ServiceKey, String> readChecksums(DataInputStream in) throws IOException {
        int n = count(in);
        Map<ServiceKey, String> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            out.put(readKey(in), Fields.readString(in));
        }
        return out;
    }

    /** Member addresses, in order (a sender's sorted view of the live members). */
    static void writeMembers(DataOutputStream out, List<String> members) throws IOException {
        out.writeInt(members.size());
        for (String m : members) {
            Fields.writeString(out, m);
        }
    }

    static List<String> readMembers(DataInputStream in) throws IOException {
        int n = count(in);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(Fields.readString(in));
        }
        return out;
    }

    static void writeKeys(DataOutputStream out, List<ServiceKey> keys) throws IOException {
        out.writeInt(keys.size());
        for (ServiceKey k : keys) {
            writeKey(out, k);
        }
    }

    static List<ServiceKey> readKeys(DataInputStream in) throws IOException {
        int n = count(in);
        List<ServiceKey> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(readKey(in));
        }
        return out;
    }

    static void writePatch(DataOutputStream out, InstancePatch p) throws IOException {
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
            Fields.writeMap(out, p.metadata());
        }
    }

    static InstancePatch readPatch(DataInputStream in) throws IOException {
        Double weight = in.readBoolean() ? in.readDouble() : null;
        Boolean enabled = in.readBoolean() ? in.readBoolean() : null;
        Map<String, String> metadata = in.readBoolean() ? Fields.readMap(in) : null;
        return new InstancePatch(weight, enabled, metadata);
    }

    static void writeBeat(DataOutputStream out, Optional<BeatInfo> beat) throws IOException {
        out.writeBoolean(beat.isPresent());
        if (beat.isPresent()) {
            BeatInfo b = beat.get();
            Fields.writeString(out, b.ip());
            out.writeInt(b.port());
            out.writeDouble(b.weight());
            Fields.writeOptional(out, b.cluster());
            Fields.writeMap(out, b.metadata());
            Fields.writeOptional(out, b.serviceName());
        }
    }

    static Optional<BeatInfo> readBeat(DataInputStream in) throws IOException {
        if (!in.readBoolean()) {
            return Optional.empty();
        }
        return Optional.of(new BeatInfo(
                Fields.readString(in),
                in.readInt(),
                in.readDouble(),
                Fields.readOptional(in),
                Fields.readMap(in),
                Fields.readOptional(in)));
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) { // every element takes at least one byte
            throw new IOException("bad element count " + n);
        }
        return n;
    }
}
