package io.lodestar.kv.rocks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksEngineTest {
    private static final long CACHE = 4L << 20;
    private static final List<String> KEYSPACES = List.of("config", "naming");

    @TempDir
    Path tmp;

    @Test
    void committedPutsAndDeletesAreReadBack() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 1, b -> {
                b.put("config", entry("a", "1", 1, 1));
                b.put("config", entry("b", "2", 1, 1));
            });
            assertValue(engine, "config", "a", "1");
            assertValue(engine, "config", "b", "2");
            assertNull(engine.get("naming", bytes("a")), "keyspaces are separate");

            commit(engine, 2, 2, b -> b.delete("config", bytes("a")));
            assertNull(engine.get("config", bytes("a")));
            assertValue(engine, "config", "b", "2");
        }
    }

    @Test
    void countAndKeysWalkTheKeysUnderAPrefixUpToALimit() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 1, b -> {
                b.put("config", entry("t1/a", "1", 1, 1));
                b.put("config", entry("t1/b", "2", 1, 1));
                b.put("config", entry("t1/c", "3", 1, 1));
                b.put("config", entry("t2/a", "4", 1, 1));
                b.put("naming", entry("t1/z", "5", 1, 1));
            });
            commit(engine, 2, 2, b -> b.delete("config", bytes("t1/b")));
            assertEquals(2, engine.count("config", bytes("t1/"), Long.MAX_VALUE), "a deleted key is not counted");
            assertEquals(1, engine.count("config", bytes("t1/"), 1), "at most the limit");
            assertEquals(3, engine.count("config", new byte[0], Long.MAX_VALUE));
            assertEquals(0, engine.count("config", bytes("t3/"), Long.MAX_VALUE));
            assertEquals(1, engine.count("naming", bytes("t1/"), Long.MAX_VALUE), "keyspaces are separate");
            assertEquals(
                    List.of("t1/a", "t1/c"),
                    engine.keys("config", bytes("t1/"), new byte[0], 10).stream()
                            .map(k -> new String(k, java.nio.charset.StandardCharsets.UTF_8))
                            .toList());
            assertEquals(
                    List.of("t1/c"),
                    engine.keys("config", bytes("t1/"), bytes("t1/b"), 10).stream()
                            .map(k -> new String(k, java.nio.charset.StandardCharsets.UTF_8))
                            .toList(),
                    "from a start key");
            assertEquals(1, engine.keys("config", bytes("t1/"), new byte[0], 1).size(), "at most the limit");
        }
    }

    @Test
    void nothingInABatchIsVisibleBeforeCommit() {
        try (RocksEngine engine = open(tmp.resolve("db"));
                RocksEngine.Batch batch = engine.newBatch()) {
            batch.put("config", entry("a", "1", 1, 1));
            assertNull(engine.get("config", bytes("a")));
            assertEquals(0, engine.appliedIndex());

            batch.commit(1, 1);
            assertValue(engine, "config", "a", "1");
        }
    }

    @Test
    void rollbackToMarkDropsOnlyWhatWasAddedAfterTheMark() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 1, b -> b.put("config", entry("doomed", "1", 1, 1)));
            try (RocksEngine.Batch batch = engine.newBatch()) {
                batch.put("config", entry("kept", "1", 2, 2));
                batch.mark();
                batch.put("config", entry("dropped", "1", 2, 2));
                batch.delete("config", bytes("doomed"));
                batch.rollbackToMark();
                batch.commit(2, 2);
            }

            assertValue(engine, "config", "kept", "1");
            assertNull(engine.get("config", bytes("dropped")));
            assertValue(engine, "config", "doomed", "1");
            assertEquals(2, engine.appliedIndex());
        }
    }

    @Test
    void createAndModifyRevisionsAreStoredWithTheValue() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 3, b -> b.put("config", entry("k", "v", 2, 3)));

            KvEntry read = engine.get("config", bytes("k"));
            assertEquals(2, read.createRevision());
            assertEquals(3, read.modRevision());
            assertArrayEquals(bytes("k"), read.key());
            assertArrayEquals(bytes("v"), read.value());
        }
    }

    @Test
    void emptyValueIsStoredAsEmptyNotAbsent() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 1, b -> b.put("config", new KvEntry(bytes("k"), new byte[0], 1, 1)));

            KvEntry read = engine.get("config", bytes("k"));
            assertNotNull(read);
            assertEquals(0, read.value().length);
        }
    }

    @Test
    void prefixScanReturnsExactlyThePrefixedKeysInOrderUpToTheLimit() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 1, b -> {
                // written out of order, with neighbours just below and just above the prefix
                for (String key : List.of("app/c", "apo", "app/a", "app0", "app", "app/b", "apq", "app/a/x")) {
                    b.put("config", entry(key, "v-" + key, 1, 1));
                }
                b.put("naming", entry("app/z", "other keyspace", 1, 1));
            });

            assertEquals(
                    List.of("app/a", "app/a/x", "app/b", "app/c"), keys(engine.scan("config", bytes("app/"), 100)));
            assertEquals(List.of("app/a", "app/a/x"), keys(engine.scan("config", bytes("app/"), 2)));
            assertEquals(List.of(), keys(engine.scan("config", bytes("zzz"), 100)));
            assertEquals(List.of("app/z"), keys(engine.scan("naming", bytes("app/"), 100)));

            KvEntry first = engine.scan("config", bytes("app/a"), 1).get(0);
            assertArrayEquals(bytes("v-app/a"), first.value());
        }
    }

    @Test
    void prefixScanComparesKeysAsUnsignedBytes() {
        byte[] prefix = {(byte) 0xF0};
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 1, 1, b -> {
                b.put("config", new KvEntry(new byte[] {(byte) 0xF0, (byte) 0x80}, bytes("high"), 1, 1));
                b.put("config", new KvEntry(new byte[] {(byte) 0xF0, 0x01}, bytes("low"), 1, 1));
                b.put("config", new KvEntry(new byte[] {(byte) 0xF1}, bytes("after"), 1, 1));
                b.put("config", new KvEntry(new byte[] {0x7F}, bytes("before"), 1, 1));
            });

            List<KvEntry> found = engine.scan("config", prefix, 10);
            assertEquals(2, found.size());
            assertArrayEquals(bytes("low"), found.get(0).value());
            assertArrayEquals(bytes("high"), found.get(1).value());
        }
    }

    @Test
    void appliedIndexAndRevisionSurviveReopen() {
        Path dir = tmp.resolve("db");
        try (RocksEngine engine = open(dir)) {
            assertEquals(0, engine.appliedIndex());
            assertEquals(0, engine.revision());
            commit(engine, 7, 3, b -> b.put("config", entry("k", "v", 3, 3)));
            assertEquals(7, engine.appliedIndex());
            assertEquals(3, engine.revision());
        }
        try (RocksEngine engine = open(dir)) {
            assertEquals(7, engine.appliedIndex());
            assertEquals(3, engine.revision());
            assertValue(engine, "config", "k", "v");
        }
    }

    @Test
    void unknownKeyspaceIsAnInvalidRequestNamingTheKeyspaceField() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            assertFalse(engine.hasKeyspace("nope"));
            assertKeyspaceRejected(() -> engine.get("nope", bytes("k")));
            assertKeyspaceRejected(() -> engine.scan("nope", bytes(""), 10));
            try (RocksEngine.Batch batch = engine.newBatch()) {
                assertKeyspaceRejected(() -> batch.put("nope", entry("k", "v", 1, 1)));
                assertKeyspaceRejected(() -> batch.delete("nope", bytes("k")));
            }
        }
    }

    @Test
    void reservedMetaKeyspaceIsNotReachableAsAKeyspace() {
        try (RocksEngine engine = open(tmp.resolve("db"))) {
            commit(engine, 5, 2, b -> {});
            assertFalse(engine.hasKeyspace(RocksEngine.META));
            assertKeyspaceRejected(() -> engine.get(RocksEngine.META, bytes("applied_index")));
            assertKeyspaceRejected(() -> engine.scan(RocksEngine.META, bytes(""), 10));
            try (RocksEngine.Batch batch = engine.newBatch()) {
                assertKeyspaceRejected(() -> batch.put(RocksEngine.META, entry("applied_index", "x", 1, 1)));
                assertKeyspaceRejected(() -> batch.delete(RocksEngine.META, bytes("revision")));
            }
            assertEquals(5, engine.appliedIndex());
        }
    }

    @Test
    void keyspaceAddedOnALaterOpenAppearsAndOldOnesKeepTheirData() {
        Path dir = tmp.resolve("db");
        try (RocksEngine engine = RocksEngine.open(dir, List.of("config"), CACHE)) {
            commit(engine, 1, 1, b -> b.put("config", entry("k", "old", 1, 1)));
            assertFalse(engine.hasKeyspace("naming"));
        }
        try (RocksEngine engine = RocksEngine.open(dir, List.of("naming"), CACHE)) {
            assertTrue(engine.hasKeyspace("naming"));
            assertTrue(engine.hasKeyspace("config"), "a keyspace on disk is kept even if not asked for");
            assertValue(engine, "config", "k", "old");
            commit(engine, 2, 2, b -> b.put("naming", entry("svc", "new", 2, 2)));
        }
        try (RocksEngine engine = RocksEngine.open(dir, List.of("config", "naming"), CACHE)) {
            assertValue(engine, "config", "k", "old");
            assertValue(engine, "naming", "svc", "new");
            assertEquals(2, engine.appliedIndex());
        }
    }

    @Test
    void openCloseCyclesLeakNoFileDescriptorsAndReleaseTheLock() {
        Path dir = tmp.resolve("db");
        // warm up: the JVM opens jars and RocksDB's shared environment on first use
        for (int i = 0; i < 5; i++) {
            openWriteClose(dir, i);
        }
        int before = openFileDescriptors();

        for (int i = 5; i < 45; i++) {
            openWriteClose(dir, i);
        }

        int after = openFileDescriptors();
        assertTrue(
                after - before <= 8,
                "open file descriptors grew from " + before + " to " + after + " over 40 open/close cycles");
        try (RocksEngine engine = open(dir)) {
            assertEquals(44, engine.appliedIndex(), "the last cycle's write is there and the LOCK was released");
            assertValue(engine, "config", "k", "v44");
        }
    }

    @Test
    void secondOpenOfALiveStoreFailsOnTheLockAndLeavesTheFirstUsable() {
        Path dir = tmp.resolve("db");
        try (RocksEngine engine = open(dir)) {
            StorageException e = assertThrows(StorageException.class, () -> open(dir));
            assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());

            commit(engine, 1, 1, b -> b.put("config", entry("k", "v", 1, 1)));
            assertValue(engine, "config", "k", "v");
        }
        try (RocksEngine engine = open(dir)) {
            assertValue(engine, "config", "k", "v");
        }
    }

    @Test
    void corruptedCurrentFileFailsOpenNamingTheStore() throws IOException {
        Path dir = populatedStore();
        Files.write(dir.resolve("CURRENT"), garbage());

        StorageException e = assertThrows(StorageException.class, () -> open(dir));
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
    }

    @Test
    void corruptedManifestFailsOpenNamingTheStore() throws IOException {
        Path dir = populatedStore();
        Path manifest = manifestOf(dir);
        Files.write(manifest, garbage());

        StorageException e = assertThrows(StorageException.class, () -> open(dir));
        assertTrue(
                e.getMessage().contains(dir.toString())
                        || e.getMessage().contains(manifest.getFileName().toString()),
                e.getMessage());
    }

    @Test
    void failedOpensOfACorruptedStoreLeakNoFileDescriptors() throws IOException {
        Path dir = populatedStore();
        Files.write(manifestOf(dir), garbage());
        for (int i = 0; i < 3; i++) {
            assertThrows(StorageException.class, () -> open(dir));
        }
        int before = openFileDescriptors();

        for (int i = 0; i < 30; i++) {
            assertThrows(StorageException.class, () -> open(dir));
        }

        int after = openFileDescriptors();
        assertTrue(
                after - before <= 8,
                "open file descriptors grew from " + before + " to " + after + " over 30 failed opens");
    }

    @Test
    void checkpointOpensAsAStoreWithTheSameDataAndNothingWrittenAfterIt() {
        Path dir = tmp.resolve("db");
        Path copy = tmp.resolve("checkpoint");
        try (RocksEngine engine = open(dir)) {
            commit(engine, 9, 4, b -> {
                b.put("config", entry("a", "1", 1, 3));
                b.put("naming", entry("b", "2", 4, 4));
            });
            engine.checkpoint(copy);
            commit(engine, 10, 5, b -> {
                b.put("config", entry("a", "changed", 1, 5));
                b.put("config", entry("late", "x", 5, 5));
            });
        }
        try (RocksEngine restored = open(copy)) {
            assertEquals(9, restored.appliedIndex());
            assertEquals(4, restored.revision());
            KvEntry a = restored.get("config", bytes("a"));
            assertArrayEquals(bytes("1"), a.value());
            assertEquals(1, a.createRevision());
            assertEquals(3, a.modRevision());
            assertValue(restored, "naming", "b", "2");
            assertNull(restored.get("config", bytes("late")));
        }
    }

    @Test
    void checkpointIntoAnExistingDirectoryFailsNamingBothPlaces() throws IOException {
        Path dir = tmp.resolve("db");
        Path target = Files.createDirectories(tmp.resolve("taken"));
        try (RocksEngine engine = open(dir)) {
            StorageException e = assertThrows(StorageException.class, () -> engine.checkpoint(target));
            assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
            assertTrue(e.getMessage().contains(target.toString()), e.getMessage());
        }
    }

    // --- helpers ---

    private static RocksEngine open(Path dir) {
        return RocksEngine.open(dir, KEYSPACES, CACHE);
    }

    private static void openWriteClose(Path dir, int i) {
        try (RocksEngine engine = open(dir)) {
            commit(engine, i, i, b -> b.put("config", entry("k", "v" + i, 1, i)));
            engine.scan("config", bytes(""), 10);
        }
    }

    private Path populatedStore() {
        Path dir = tmp.resolve("db");
        try (RocksEngine engine = open(dir)) {
            commit(engine, 1, 1, b -> b.put("config", entry("k", "v", 1, 1)));
        }
        return dir;
    }

    private static Path manifestOf(Path dir) throws IOException {
        String current = Files.readString(dir.resolve("CURRENT"), UTF_8).trim();
        Path manifest = dir.resolve(current);
        assertTrue(Files.exists(manifest), "CURRENT names " + current);
        return manifest;
    }

    private static byte[] garbage() {
        byte[] junk = new byte[512];
        for (int i = 0; i < junk.length; i++) {
            junk[i] = (byte) (i * 31 + 7);
        }
        return junk;
    }

    private static int openFileDescriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return (int) fds.count();
        } catch (IOException e) {
            throw new IllegalStateException("cannot count /proc/self/fd", e);
        }
    }

    private interface BatchBody {
        void fill(RocksEngine.Batch batch);
    }

    private static void commit(RocksEngine engine, long index, long revision, BatchBody body) {
        try (RocksEngine.Batch batch = engine.newBatch()) {
            body.fill(batch);
            batch.commit(index, revision);
        }
    }

    private static void assertKeyspaceRejected(Runnable call) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, call::run);
        assertEquals("keyspace", e.field());
        assertTrue(e.getMessage().contains("keyspace"), e.getMessage());
    }

    private static void assertValue(RocksEngine engine, String keyspace, String key, String value) {
        KvEntry found = engine.get(keyspace, bytes(key));
        assertNotNull(found, keyspace + "/" + key + " missing");
        assertEquals(value, new String(found.value(), UTF_8));
    }

    private static KvEntry entry(String key, String value, long create, long mod) {
        return new KvEntry(bytes(key), bytes(value), create, mod);
    }

    private static List<String> keys(List<KvEntry> entries) {
        return entries.stream().map(e -> new String(e.key(), UTF_8)).toList();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }
}
