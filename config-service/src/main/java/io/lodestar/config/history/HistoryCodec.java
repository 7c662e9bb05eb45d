package io.lodestar.config.history;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.StoredFields;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** The stored form of a history entry: a version byte, then its fields (the id is in the key). */
final class HistoryCodec {
    private static final byte VERSION = 1;

    private HistoryCodec() {}

    static byte[] encode(HistoryEntry e) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(e.content().length() + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(e.operation().ordinal());
            byte[] content = e.content().getBytes(StandardCharsets.UTF_8);
            out.writeInt(content.length);
            out.write(content);
            out.writeUTF(e.md5());
            StoredFields.writeOptional(out, e.appName());
            StoredFields.writeOptional(out, e.srcIp());
            StoredFields.writeOptional(out, e.srcUser());
            out.writeLong(e.time());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /**
     * The time of a stored entry without decoding the rest: it is the last field, a fixed 8 bytes,
     * so retention reads two fields of each entry instead of copying every content into a String.
     */
    static long time(byte[] stored) {
        if (stored.length < 2 + Long.BYTES || stored[0] != VERSION) {
            throw new IllegalStateException("not a version " + VERSION + " history entry (" + stored.length + " bytes"
                    + (stored.length > 0 ? ", version " + stored[0] : "") + ")");
        }
        return ByteBuffer.wrap(stored, stored.length - Long.BYTES, Long.BYTES).getLong();
    }

    static HistoryEntry decode(long id, ConfigKey key, byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored history version " + version + " for " + key);
            }
            HistoryEntry.Operation op = HistoryEntry.Operation.values()[in.readByte()];
            byte[] content = new byte[in.readInt()];
            in.readFully(content);
            return new HistoryEntry(
                    id,
                    key,
                    op,
                    new String(content, StandardCharsets.UTF_8),
                    in.readUTF(),
                    StoredFields.readOptional(in),
                    StoredFields.readOptional(in),
                    StoredFields.readOptional(in),
                    in.readLong());
        } catch (IOException ex) {
            throw new UncheckedIOException("corrupt history entry " + id + " of " + key, ex);
        }
    }
}
