package io.lodestar.kv.codec;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes a record's fields into a byte array: the {@link DataOutputStream} primitives plus the
 * length-prefixed forms {@link FieldInput} reads back. Not thread-safe; one record per instance.
 *
 * <ul>
 *   <li>{@link #writeString}: a 4-byte byte count, then UTF-8, any length;
 *   <li>{@link #writeUTF} (inherited): a 2-byte count, then modified UTF-8, under 64 KiB;
 *   <li>the optional forms: a presence flag, then the value if present;
 *   <li>{@link #writeMap}: a 4-byte entry count, then key and value of each as {@link #writeString}.
 * </ul>
 */
public final class FieldOutput extends DataOutputStream {
    private final ByteArrayOutputStream bytes;

    /** @param sizeHint the expected size of the record, to size the buffer once */
    public FieldOutput(int sizeHint) {
        this(new ByteArrayOutputStream(sizeHint));
    }

    private FieldOutput(ByteArrayOutputStream bytes) {
        super(bytes);
        this.bytes = bytes;
    }

    /** A string of any length: byte count, then UTF-8 ({@code writeUTF} stops at 64 KiB). */
    public void writeString(String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        writeInt(utf8.length);
        write(utf8);
    }

    /** A presence flag, then {@link #writeString} if present. */
    public void writeOptionalString(String s) throws IOException {
        writeBoolean(s != null);
        if (s != null) {
            writeString(s);
        }
    }

    /** A presence flag, then {@link #writeUTF} if present. */
    public void writeOptionalUTF(String s) throws IOException {
        writeBoolean(s != null);
        if (s != null) {
            writeUTF(s);
        }
    }

    /** Entry count, then key and value of each, in the map's order. */
    public void writeMap(Map<String, String> map) throws IOException {
        writeInt(map.size());
        for (Map.Entry<String, String> e : map.entrySet()) {
            writeString(e.getKey());
            writeString(e.getValue());
        }
    }

    /** The record written so far. */
    public byte[] toByteArray() {
        return bytes.toByteArray();
    }
}
