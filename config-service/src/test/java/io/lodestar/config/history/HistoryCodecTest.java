package io.lodestar.config.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.config.ConfigKey;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stored form round-trips, and retention's time-only read agrees with the full decode. */
class HistoryCodecTest {
    private static final ConfigKey KEY = new ConfigKey("ns", "G", "d");

    @Test
    void timeReadAloneEqualsTheDecodedTimeWhateverComesBeforeIt() {
        List<HistoryEntry> entries = List.of(
                new HistoryEntry(1, KEY, HistoryEntry.Operation.INSERT, "", "md5", null, null, null, 0L),
                new HistoryEntry(
                        2,
                        KEY,
                        HistoryEntry.Operation.UPDATE,
                        "ü€😀 multi-byte",
                        "m",
                        "app",
                        "10.0.0.1",
                        "alice",
                        1_764_000_000_123L),
                new HistoryEntry(
                        3,
                        KEY,
                        HistoryEntry.Operation.DELETE,
                        "x".repeat(70_000),
                        "m",
                        null,
                        "::1",
                        null,
                        Long.MAX_VALUE - 1));
        for (HistoryEntry e : entries) {
            byte[] stored = HistoryCodec.encode(e);
            assertEquals(e, HistoryCodec.decode(e.id(), KEY, stored));
            assertEquals(e.time(), HistoryCodec.time(stored), "entry " + e.id());
        }
    }

    @Test
    void timeOfSomethingThatIsNotAVersionOneEntryFails() {
        byte[] stored = HistoryCodec.encode(
                new HistoryEntry(1, KEY, HistoryEntry.Operation.INSERT, "c", "m", null, null, null, 5L));
        stored[0] = 9;
        assertThrows(IllegalStateException.class, () -> HistoryCodec.time(stored));
        assertThrows(IllegalStateException.class, () -> HistoryCodec.time(new byte[] {1, 0, 0}));
        assertThrows(IllegalStateException.class, () -> HistoryCodec.time(new byte[0]));
    }

    /** HistoryCodec's output before FieldOutput, for {@link #OLD_ENTRY}. */
    private static final String OLD_HEX =
            "0101000000046320c3bc00026d350001000831302e302e302e31010005616c696365000000000000002a";

    private static final HistoryEntry OLD_ENTRY =
            new HistoryEntry(9, KEY, HistoryEntry.Operation.UPDATE, "c ü", "m5", null, "10.0.0.1", "alice", 42L);

    @Test
    void anEntryStoredByEarlierBuildsDecodesAndReEncodesToTheSameBytes() {
        byte[] old = HexFormat.of().parseHex(OLD_HEX);
        HistoryEntry e = HistoryCodec.decode(9, KEY, old);
        assertEquals(OLD_ENTRY, e);
        org.junit.jupiter.api.Assertions.assertArrayEquals(old, HistoryCodec.encode(e));
    }
}
