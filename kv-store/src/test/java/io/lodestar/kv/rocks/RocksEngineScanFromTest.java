package io.lodestar.kv.rocks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.kv.KvEntry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RocksEngine#scanFrom}: a range read inside a prefix, as a log keyed by revision needs. */
class RocksEngineScanFromTest {
    private static final byte[] LOG = {'c'};

    @TempDir
    Path tmp;

    @Test
    void readsTheEntriesOfThePrefixFromTheStartKeyOnInOrder() {
        try (RocksEngine engine = RocksEngine.open(tmp.resolve("db"), List.of("log"), 4L << 20)) {
            try (RocksEngine.Batch b = engine.newBatch()) {
                for (long rev : new long[] {1, 2, 255, 256, 70_000}) {
                    b.put("log", new KvEntry(at(LOG, rev), new byte[] {(byte) rev}, rev, rev));
                }
                b.put("log", new KvEntry(at(new byte[] {'b'}, 300), new byte[0], 3, 3)); // before the prefix
                b.put("log", new KvEntry(at(new byte[] {'d'}, 1), new byte[0], 3, 3)); // after it
                b.commit(1, 5);
            }
            assertEquals(List.of(2L, 255L, 256L, 70_000L), revisions(engine.scanFrom("log", LOG, at(LOG, 2), 100)));
            assertEquals(List.of(256L, 70_000L), revisions(engine.scanFrom("log", LOG, at(LOG, 256), 100)));
            assertEquals(List.of(255L, 256L), revisions(engine.scanFrom("log", LOG, at(LOG, 3), 2)), "limit");
            assertEquals(List.of(), revisions(engine.scanFrom("log", LOG, at(LOG, 70_001), 100)), "past the end");
            assertEquals(
                    List.of(1L, 2L, 255L, 256L, 70_000L),
                    revisions(engine.scanFrom("log", LOG, new byte[] {'a'}, 100)),
                    "a start before the prefix");
            assertEquals(List.of(), revisions(engine.scanFrom("log", LOG, new byte[] {'e'}, 100)), "a start after it");
        }
    }

    private static byte[] at(byte[] prefix, long revision) {
        return ByteBuffer.allocate(prefix.length + 8)
                .put(prefix)
                .putLong(revision)
                .array();
    }

    private static List<Long> revisions(List<KvEntry> entries) {
        return entries.stream()
                .map(e -> ByteBuffer.wrap(e.key(), 1, 8).getLong())
                .toList();
    }
}
