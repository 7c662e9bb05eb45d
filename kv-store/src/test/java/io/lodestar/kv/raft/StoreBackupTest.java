package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.StoreCheckpoint;
import io.lodestar.kv.backup.BackupFormat;
import io.lodestar.kv.backup.BackupFormatException;
import io.lodestar.kv.backup.BackupHeader;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.testing.Await;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot file taken from a running group under writes holds exactly the writes up to its
 * revision, and a new group of three restored from it serves exactly that, then continues the
 * revisions from there. A damaged file is refused by name with nothing written.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StoreBackupTest {
    @TempDir
    Path dir;

    @Test
    void aNewGroupRestoredFromASnapshotTakenUnderWritesHoldsExactlyItsRevision() throws Exception {
        Path file = dir.resolve("lodestar.snapshot");
        Map<String, Long> revisionOf = new ConcurrentHashMap<>();
        StoreCheckpoint taken;
        try (TestCluster source = TestCluster.start(dir.resolve("source"), 1)) {
            source.awaitStable();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = new Thread(() -> {
                for (int n = 0; writing.get(); n++) {
                    String key = "k" + n;
                    try {
                        WriteResult r = source.node(0)
                                .write(Command.put(TestCluster.KS, TestCluster.bytes(key), TestCluster.bytes("v" + n)))
                                .get(10, TimeUnit.SECONDS);
                        revisionOf.put(key, r.revision());
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
            });
            writer.start();
            Await.until(Duration.ofSeconds(20), "writes before the snapshot", () -> revisionOf.size() >= 300);
            taken = source.node(0).checkpoint().get(20, TimeUnit.SECONDS);
            int atCheckpoint = revisionOf.size();
            Await.until(
                    Duration.ofSeconds(20), "writes after the snapshot", () -> revisionOf.size() >= atCheckpoint + 100);
            writing.set(false);
            writer.join();
            try (taken;
                    OutputStream out = Files.newOutputStream(file)) {
                BackupFormat.write(header(taken, source.node(0).clusterId()), taken.dir(), out);
            }
            assertFalse(Files.exists(taken.dir()), "a closed checkpoint is deleted");
        }
        long before =
                revisionOf.values().stream().filter(r -> r <= taken.revision()).count();
        long after =
                revisionOf.values().stream().filter(r -> r > taken.revision()).count();
        assertTrue(before >= 300 && after >= 1, before + " writes up to the snapshot, " + after + " after");
        assertEquals((Long) before, taken.keys().get(TestCluster.KS), "the header counts the keys it holds");

        TestCluster restored = TestCluster.create(dir.resolve("restored"), 3, (i, c) -> c);
        try (restored) {
            List<String> peers = List.of(restored.peer(0), restored.peer(1), restored.peer(2));
            for (int i = 0; i < 3; i++) {
                BackupFormat.Contents contents =
                        StoreRestore.restore(file, restored.dataDir(i), peers, Set.of(TestCluster.KS), CountRules.NONE);
                assertEquals(taken.revision(), contents.header().revision());
            }
            for (int i = 0; i < 3; i++) {
                restored.startNode(i);
            }
            int leader = restored.awaitStable();
            for (RaftKvStore node : restored.running()) {
                Map<String, Long> served = new HashMap<>();
                for (KvEntry e : node.scan(TestCluster.KS, new byte[0], Integer.MAX_VALUE)) {
                    String key = new String(e.key(), StandardCharsets.UTF_8);
                    assertEquals("v" + key.substring(1), new String(e.value(), StandardCharsets.UTF_8), key);
                    served.put(key, e.modRevision());
                }
                Map<String, Long> expected = new HashMap<>(revisionOf);
                expected.values().removeIf(r -> r > taken.revision());
                assertEquals(expected, served, "every key with its revision, up to the snapshot's and none after");
                assertTrue(node.revision() >= taken.revision());
            }
            long next = restored.put(leader, "after-restore", "x").revision();
            assertTrue(next > taken.revision(), "revisions continue from the snapshot's: " + next);
            restored.awaitIdentical();
        }
    }

    @Test
    void aDamagedTruncatedOrNewerFileIsRefusedByNameAndNothingIsWritten() throws Exception {
        Path file = dir.resolve("good.snapshot");
        try (TestCluster source = TestCluster.start(dir.resolve("source"), 1)) {
            source.awaitStable();
            source.putMany(0, "k", 50);
            try (StoreCheckpoint cp = source.node(0).checkpoint().get(20, TimeUnit.SECONDS);
                    OutputStream out = Files.newOutputStream(file)) {
                BackupFormat.write(header(cp, ""), cp.dir(), out);
            }
        }
        byte[] good = Files.readAllBytes(file);
        byte[] flipped = good.clone();
        flipped[good.length / 2] ^= 1;
        byte[] newer = good.clone();
        newer[21] = 9; // the format's low byte, right after the 18-byte magic
        Map<String, byte[]> bad = Map.of(
                "is damaged", flipped,
                "is truncated", java.util.Arrays.copyOf(good, good.length - 40),
                "newer than this build reads", newer,
                "is not a Lodestar snapshot file", "hello".getBytes(StandardCharsets.UTF_8),
                "bytes follow its checksum", concat(good, new byte[] {0}));
        List<String> seen = new ArrayList<>();
        for (Map.Entry<String, byte[]> b : bad.entrySet()) {
            Path f = dir.resolve("bad.snapshot");
            Files.write(f, b.getValue());
            Path target = dir.resolve("target");
            BackupFormatException e = assertThrows(
                    BackupFormatException.class,
                    () -> StoreRestore.restore(
                            f, target, List.of("127.0.0.1:1"), Set.of(TestCluster.KS), CountRules.NONE));
            assertTrue(e.getMessage().contains(b.getKey()), b.getKey() + ": " + e.getMessage());
            assertFalse(Files.exists(target), "nothing written for a file that " + b.getKey());
            seen.add(e.getMessage());
        }
        System.out.println("refusals: " + seen);
        Path notEmpty = Files.createDirectories(dir.resolve("used"));
        Files.writeString(notEmpty.resolve("something"), "x");
        assertThrows(
                IllegalArgumentException.class,
                () -> StoreRestore.restore(
                        file, notEmpty, List.of("127.0.0.1:1"), Set.of(TestCluster.KS), CountRules.NONE));
    }

    private static BackupHeader header(StoreCheckpoint cp, String clusterId) {
        return new BackupHeader(
                BackupFormat.VERSION, cp.revision(), cp.appliedIndex(), Instant.now(), clusterId, "test", cp.keys());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
