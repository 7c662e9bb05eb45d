package io.lodestar.kv.codec;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the fields {@link FieldOutput} writes, from one record's bytes. Every read names its field:
 * a record cut short, or a length or count that is negative, past the bytes left or past the bound,
 * throws {@link CorruptFieldException} naming that field, before anything is allocated for it. The
 * inherited {@link DataInputStream} methods stay available for fixed-size fields. Not thread-safe.
 */
public final class FieldInput extends DataInputStream {
    /** The default bound on one field: larger than any config (10 MiB), far below what would hurt the heap. */
    public static final int DEFAULT_MAX_FIELD_BYTES = 64 << 20;

    private final int maxFieldBytes;

    public FieldInput(byte[] record) {
        this(record, DEFAULT_MAX_FIELD_BYTES);
    }

    /** @param maxFieldBytes the largest length or count a field may declare */
    public FieldInput(byte[] record, int maxFieldBytes) {
        super(new ByteArrayInputStream(record));
        this.maxFieldBytes = maxFieldBytes;
    }

    public byte readByte(String field) throws CorruptFieldException {
        try {
            return readByte();
        } catch (IOException e) {
            throw cutShort(field);
        }
    }

    public boolean readBoolean(String field) throws CorruptFieldException {
        try {
            return readBoolean();
        } catch (IOException e) {
            throw cutShort(field);
        }
    }

    public int readInt(String field) throws CorruptFieldException {
        try {
            return readInt();
        } catch (IOException e) {
            throw cutShort(field);
        }
    }

    public int readUnsignedShort(String field) throws CorruptFieldException {
        try {
            return readUnsignedShort();
        } catch (IOException e) {
            throw cutShort(field);
        }
    }

    public long readLong(String field) throws CorruptFieldException {
        try {
            return readLong();
        } catch (IOException e) {
            throw cutShort(field);
        }
    }

    public double readDouble(String field) throws CorruptFieldException {
        try {
            return readDouble();
        } catch (IOException e) {
            throw cutShort(field);
        }
    }

    /** A {@link FieldOutput#writeString} string: its byte count is checked before the bytes are allocated. */
    public String readString(String field) throws CorruptFieldException {
        return new String(readBytes(field), StandardCharsets.UTF_8);
    }

    /** A 4-byte byte count, then that many bytes, the count checked first. */
    public byte[] readBytes(String field) throws CorruptFieldException {
        byte[] bytes = new byte[length(field)];
        try {
            readFully(bytes);
        } catch (IOException e) {
            throw cutShort(field);
        }
        return bytes;
    }

    public String readOptionalString(String field) throws CorruptFieldException {
        return readBoolean(field) ? readString(field) : null;
    }

    /** A {@link #writeUTF} string; its 2-byte count bounds it, and a count past the end is reported. */
    public String readUTF(String field) throws CorruptFieldException {
        try {
            return readUTF();
        } catch (EOFException e) {
            throw cutShort(field);
        } catch (IOException e) { // malformed modified UTF-8
            throw new CorruptFieldException(field, e.getMessage());
        }
    }

    public String readOptionalUTF(String field) throws CorruptFieldException {
        return readBoolean(field) ? readUTF(field) : null;
    }

    /** A {@link FieldOutput#writeMap} map, unmodifiable, in the written order. */
    public Map<String, String> readMap(String field) throws CorruptFieldException {
        int n = count(field);
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            map.put(readString(field + " key"), readString(field + " value"));
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * A 4-byte element count, checked against the bytes left (each element takes at least one) and
     * the bound, so a caller may size a collection with it.
     */
    public int count(String field) throws CorruptFieldException {
        return length(field);
    }

    private int length(String field) throws CorruptFieldException {
        int n = readInt(field);
        if (n < 0) {
            throw new CorruptFieldException(field, "negative length " + n);
        }
        if (n > maxFieldBytes) {
            throw new CorruptFieldException(field, "length " + n + " over the bound of " + maxFieldBytes);
        }
        int left = remaining();
        if (n > left) {
            throw new CorruptFieldException(field, "length " + n + " past the end of the record (" + left + " left)");
        }
        return n;
    }

    private int remaining() {
        try {
            return available();
        } catch (IOException e) {
            return 0; // a byte array stream never fails
        }
    }

    private static CorruptFieldException cutShort(String field) {
        return new CorruptFieldException(field, "the record ends before it");
    }
}
