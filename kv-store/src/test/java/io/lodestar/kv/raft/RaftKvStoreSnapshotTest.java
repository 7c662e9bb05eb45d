package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.command.Command;
import io.lodestar.kv.testing.Await;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Nodes that cannot catch up from the log catch up from a snapshot, and end identical. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftKvStoreSnapshotTest {
    @TempDir
    Path dir;

    /**
     * A follower whose data dir is deleted comes back empty; the leader's log no longer starts at
     * 1, so the follower must install a snapshot (its store moves to a new generation), then the
     * log after it, and ends identical.
     */
    @Test
    void wipedNodeCatchesUpFromSnapshot() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            c.putMany(leader, "a", 200);
            snapshotAndCompactEverywhere(c, leader);
            c.putMany(leader, "b", 50);
            int follower = c.other(leader);
            c.stopNode(follower);
            c.putMany(leader, "c", 20);
            c.wipe(follower);

            restartReadingUntilIdentical(c, follower);
            assertNotEquals("gen-1", c.activeGeneration(follower), "the wiped node did not install a snapshot");
            assertServes(c, follower);
            c.put(follower, "after", "v");
            c.awaitIdentical();
            assertEquals("v", c.value(follower, "after"));
        }
    }

    /**
     * A follower that was down while the others wrote and compacted their logs past its last
     * entry installs a snapshot over its old store on restart and ends identical.
     */
    @Test
    void laggingFollowerPastTheCompactedLogCatchesUpFromSnapshot() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            c.putMany(leader, "a", 50);
            int follower = c.other(leader);
            c.awaitIdentical();
            c.stopNode(follower);
            c.putMany(leader, "b", 200);
            c.put(leader, "a0", "overwritten");
            c.node(leader)
                    .write(Command.delete(TestCluster.KS, TestCluster.bytes("a1")))
                    .get(10, TimeUnit.SECONDS);
            snapshotAndCompactEverywhere(c, leader);
            c.putMany(leader, "c", 20);

            restartReadingUntilIdentical(c, follower);
            assertEquals("gen-2", c.activeGeneration(follower), "the follower did not install a snapshot");
            assertServes(c, follower);
            assertEquals("overwritten", c.value(follower, "a0"));
            assertEquals(null, c.value(follower, "a1"));
            c.put(follower, "after", "v");
            c.awaitIdentical();
        }
    }

    /**
     * The size trigger alone (no explicit snapshot, the hourly timer far away) keeps the log
     * bounded, and a follower that was down past two snapshots catches up by installing one.
     */
    @Test
    void theLogIsBoundedBySizeTriggeredSnapshotsAndALaggingFollowerInstallsOne() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3, cfg -> cfg.withSnapshotThresholds(300, 1L << 20))) {
            int leader = c.awaitStable();
            c.putMany(leader, "a", 50);
            c.awaitIdentical();
            int follower = c.other(leader);
            c.stopNode(follower);
            byte[] value = new byte[16 << 10];
            for (int k = 0; k < 6_000; k++) {
                c.node(leader)
                        .write(Command.put(TestCluster.KS, TestCluster.bytes("big" + (k % 100)), value))
                        .get(10, TimeUnit.SECONDS);
            }
            c.putMany(leader, "b", 50);
            c.putMany(leader, "c", 20);
            RaftKvStore lead = c.node(leader);
            Await.until(
                    TestCluster.WAIT,
                    "a snapshot within one threshold of the head",
                    () -> lead.logStats().entriesSinceSnapshot() < 300
                            && lead.logStats().bytesSinceSnapshot() < 1L << 20);
            assertTrue(lead.logStats().snapshots() >= 20, "snapshots by size: " + lead.logStats());
            // 96 MiB of values went through the log; what stays, once the truncation behind the last
            // snapshot has deleted its files (in the background), is two thresholds' worth of entries,
            // up to 16 MiB of WAL and the level-0 table files not yet compacted
            Await.until(
                    TestCluster.WAIT,
                    "the log on disk under 40 MiB",
                    () -> lead.logStats().logBytes() < 40L << 20);

            restartReadingUntilIdentical(c, follower);
            assertEquals("gen-2", c.activeGeneration(follower), "the follower did not install a snapshot");
            assertServes(c, follower);
        }
    }

    /** Starts {@code node} again and reads it without pause until the group is identical. */
    private static void restartReadingUntilIdentical(TestCluster c, int node) throws InterruptedException {
        try (Reader reader = new Reader(c.startNode(node))) {
            c.awaitIdentical();
            reader.assertNoErrors();
        }
    }

    /**
     * JRaft truncates the log only up to the previous snapshot, so compacting past the data
     * written so far takes a snapshot, one more write, and a second snapshot.
     */
    private static void snapshotAndCompactEverywhere(TestCluster c, int leader) throws Exception {
        for (int round = 0; round < 2; round++) {
            c.put(leader, "compaction-" + round, "v");
            c.awaitIdentical();
            for (RaftKvStore n : c.running()) {
                n.snapshot().get(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Reads a node without pause while it catches up: the store is swapped under it by the
     * snapshot install, yet every read must succeed and the revision must never go backwards.
     */
    private static final class Reader implements AutoCloseable {
        private final Thread thread;
        private final java.util.List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile boolean stopped;
        private volatile int reads;

        Reader(RaftKvStore node) {
            thread = new Thread(
                    () -> {
                        long last = 0;
                        while (!stopped) {
                            try {
                                long revision = node.revision();
                                if (revision < last) {
                                    errors.add("revision went back from " + last + " to " + revision);
                                }
                                last = revision;
                                node.scan(TestCluster.KS, TestCluster.bytes("b1"), 20);
                                node.get(TestCluster.KS, TestCluster.bytes("a2"));
                                reads++;
                            } catch (RuntimeException e) {
                                errors.add(e.toString());
                            }
                        }
                    },
                    "snapshot-reader");
            thread.setDaemon(true);
            thread.start();
        }

        void assertNoErrors() {
            assertEquals(java.util.List.of(), errors.subList(0, Math.min(5, errors.size())));
            assertTrue(reads > 0);
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            thread.join(5000);
        }
    }

    private static void assertServes(TestCluster c, int node) {
        for (int k = 0; k < 50; k += 7) {
            if (k > 1) {
                assertEquals("v-a" + k, c.value(node, "a" + k));
            }
            assertEquals("v-b" + k, c.value(node, "b" + k));
        }
        assertEquals("v-c19", c.value(node, "c19"));
        for (int i = 0; i < c.size(); i++) {
            if (c.node(i) != null) {
                assertEquals(TestCluster.digest(c.node(node)), TestCluster.digest(c.node(i)));
            }
        }
    }
}
