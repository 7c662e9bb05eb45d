package io.lodestar.kv.rocks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvEntry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What fills RocksDB's block cache, which is native memory: reads requests make do; background
 * passes ({@link RocksEngine#sweepFrom}), reads of keys being deleted ({@link RocksEngine#getUncached})
 * and lookups of keys that do not exist (answered by the bloom filters) do not.
 */
class RocksEngineBlockCacheTest {
    private static final byte[] LOG = {'c'};
    private static final int ENTRIES = 4_000;

    @TempDir
    Path tmp;

    /** 4 MiB that LZ4 cannot shrink, then reopened: recovery flushes the memtable, so reads go to table files. */
    @BeforeEach
    void writeTableFiles() {
        try (RocksEngine engine = open();
                RocksEngine.Batch b = engine.newBatch()) {
            for (long rev = 1; rev <= ENTRIES; rev++) {
                byte[] value = new byte[1024];
                new Random(rev).nextBytes(value);
                b.put("log", new KvEntry(at(rev), value, rev, rev));
            }
            b.commit(1, ENTRIES);
        }
    }

    @Test
    void sweepsAndUncachedGetsReadWhatScansReadWithoutFillingTheBlockCache() {
        try (RocksEngine engine = open()) {
            long before = cached(engine);
            List<KvEntry> swept = engine.sweepFrom("log", LOG, LOG, ENTRIES);
            long afterSweep = cached(engine);
            KvEntry last = engine.getUncached("log", at(ENTRIES));
            long afterUncachedGet = cached(engine);
            List<KvEntry> scanned = engine.scanFrom("log", LOG, LOG, ENTRIES);
            long afterScan = cached(engine);

            assertEquals(ENTRIES, swept.size());
            assertEquals(ENTRIES, ByteBuffer.wrap(last.key(), 1, 8).getLong());
            assertEquals(
                    scanned.stream().map(e -> ByteBuffer.wrap(e.key())).toList(),
                    swept.stream().map(e -> ByteBuffer.wrap(e.key())).toList());
            assertTrue(afterSweep - before < 512 << 10, "a sweep cached " + (afterSweep - before) + " bytes");
            assertEquals(afterSweep, afterUncachedGet, "an uncached get changed the block cache");
            assertTrue(
                    afterScan - afterUncachedGet > 2 << 20,
                    "a scan cached only " + (afterScan - afterUncachedGet) + " bytes");
        }
    }

    @Test
    void lookupsOfMissingKeysReadNoDataBlock() {
        try (RocksEngine engine = open()) {
            long before = cached(engine);
            for (long rev = 1; rev <= ENTRIES; rev++) {
                // between two stored keys, so inside every table file's key range
                byte[] missing = java.util.Arrays.copyOf(at(rev), LOG.length + 9);
                assertNull(engine.get("log", missing));
            }
            long afterMisses = cached(engine);
            for (long rev = 1; rev <= ENTRIES; rev += 100) {
                assertEquals(rev, engine.get("log", at(rev)).modRevision());
            }
            long afterHits = cached(engine);

            // without filters each miss caches the block its key would be in: all 4 MiB of them;
            // with them only the false positives (about 1 %) read a block
            assertTrue(afterMisses - before < 1 << 20, ENTRIES + " misses cached " + (afterMisses - before) + " bytes");
            assertTrue(
                    afterHits - afterMisses > 100 << 10, "40 hits cached only " + (afterHits - afterMisses) + " bytes");
        }
    }

    private RocksEngine open() {
        return RocksEngine.open(tmp.resolve("db"), List.of("log"), 32L << 20);
    }

    private static long cached(RocksEngine engine) {
        return engine.storageMemory().blockCacheBytes();
    }

    private static byte[] at(long revision) {
        return ByteBuffer.allocate(LOG.length + 8).put(LOG).putLong(revision).array();
    }
}
