package io.lodestar.config.history;

import io.lodestar.config.ConfigKey;
import io.lodestar.kv.codec.FieldInput;
import io.lodestar.kv.codec.FieldOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/** The stored form of a history entry: a version byte, then its fields (the id is in the key). */
final class HistoryCodec {
    private static final byte VERSION = 1;

    private HistoryCodec() {}

    static byte[] encode(HistoryEntry e) {
        try (FieldOutput out = new FieldOutput(e.content().length() + 64)) {
            out.writeByte(VERSION);
            out.writeByte(e.operation().ordinal());
            out.writeString(e.content());
            out.writeUTF(e.md5());
            out.writeOptionalUTF(e.appName());
            out.writeOptionalUTF(e.srcIp());
            out.writeOptionalUTF(e.srcUser());
            out.writeLong(e.time());
            return out.toByteArray();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
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
        try (FieldInput in = new FieldInput(stored)) {
            byte version = in.readByte("version");
            if (version != VERSION) {
                throw new IllegalStateException("unknown stored history version " + version + " for " + key);
            }
            HistoryEntry.Operation op = HistoryEntry.Operation.values()[in.readByte("operation")];
            return new HistoryEntry(
                    id,
                    key,
                    op,
                    in.readString("content"),
                    in.readUTF("md5"),
                    in.readOptionalUTF("appName"),
                    in.readOptionalUTF("srcIp"),
                    in.readOptionalUTF("srcUser"),
                    in.readLong("time"));
        } catch (IOException ex) {
            throw new UncheckedIOException("corrupt history entry " + id + " of " + key, ex);
        }
    }
}
