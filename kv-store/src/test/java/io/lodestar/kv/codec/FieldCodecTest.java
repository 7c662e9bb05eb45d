package io.lodestar.kv.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** FieldOutput's forms read back through FieldInput, and a corrupt record fails naming its field. */
class FieldCodecTest {
    @Test
    void everyFormReadsBackAsWritten() throws IOException {
        Map<String, String> map = new LinkedHashMap<>();
        map.put("b", "ü€😀");
        map.put("a", "");
        byte[] record;
        try (FieldOutput out = new FieldOutput(16)) {
            out.writeByte(7);
            out.writeString("x".repeat(70_000));
            out.writeOptionalString(null);
            out.writeOptionalString("s");
            out.writeUTF("short");
            out.writeOptionalUTF(null);
            out.writeOptionalUTF("u");
            out.writeMap(map);
            out.writeLong(42L);
            record = out.toByteArray();
        }
        try (FieldInput in = new FieldInput(record)) {
            assertEquals(7, in.readByte("b"));
            assertEquals("x".repeat(70_000), in.readString("long"));
            assertNull(in.readOptionalString("absent"));
            assertEquals("s", in.readOptionalString("present"));
            assertEquals("short", in.readUTF("utf"));
            assertNull(in.readOptionalUTF("absent utf"));
            assertEquals("u", in.readOptionalUTF("present utf"));
            assertEquals(map, in.readMap("map"));
            assertEquals(42L, in.readLong("time"));
            assertEquals(0, in.available());
        }
    }

    @Test
    void theStringFormIsAnIntByteCountThenUtf8() throws IOException {
        try (FieldOutput out = new FieldOutput(8)) {
            out.writeString("é");
            out.writeOptionalUTF("a");
            assertArrayEquals(HexFormat.of().parseHex("00000002c3a901000161"), out.toByteArray());
        }
    }

    @Test
    void aHugeLengthIsRefusedBeforeAnythingIsAllocated() {
        byte[] record = HexFormat.of().parseHex("7fffffff00");
        CorruptFieldException e =
                assertThrows(CorruptFieldException.class, () -> new FieldInput(record).readString("content"));
        assertEquals("content", e.field());
        assertTrue(e.getMessage().contains("over the bound"), e.getMessage());
        // within the bound but past the bytes there are: still refused before allocating
        CorruptFieldException past = assertThrows(
                CorruptFieldException.class, () -> new FieldInput(record, Integer.MAX_VALUE).readBytes("content"));
        assertTrue(past.getMessage().contains("past the end"), past.getMessage());
        assertThrows(
                CorruptFieldException.class,
                () -> new FieldInput(HexFormat.of().parseHex("ffffffff")).readMap("metadata"));
    }

    @Test
    void aRecordCutShortNamesTheFieldItCutThrough() throws IOException {
        byte[] whole;
        try (FieldOutput out = new FieldOutput(16)) {
            out.writeUTF("name");
            out.writeLong(1L);
            whole = out.toByteArray();
        }
        byte[] cut = Arrays.copyOf(whole, whole.length - 1);
        FieldInput in = new FieldInput(cut);
        assertEquals("name", in.readUTF("name"));
        assertEquals(
                "createTime",
                assertThrows(CorruptFieldException.class, () -> in.readLong("createTime"))
                        .field());
        assertEquals(
                "desc",
                assertThrows(CorruptFieldException.class, () -> new FieldInput(Arrays.copyOf(whole, 3)).readUTF("desc"))
                        .field());
    }
}
