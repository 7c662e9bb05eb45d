package io.lodestar.kv.raft;

import static io.lodestar.kv.raft.TestCluster.KS;
import static io.lodestar.kv.raft.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvException;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Leader loss under load, and the minority side of a group. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RaftKvStoreFailoverTest {
    private static final int CLIENTS = 4;

    @TempDir
    Path dir;

    @Test
    void leaderCrashLosesNoAcknowledgedWrite() throws Exception {
        leaderLossLosesNoAcknowledgedWrite(true);
    }

    @Test
    void leaderShutdownLosesNoAcknowledgedWrite() throws Exception {
        leaderLossLosesNoAcknowledgedWrite(false);
    }

    /**
     * Clients write unique keys through every node while the leader stops mid-stream. Writes
     * resume on a new leader within seconds; no write ends without an outcome; every acknowledged
     * key is on every replica with its value at the acknowledged revision (so none was applied
     * twice); none that failed as not committed is anywhere; the stopped node comes back identical.
     */
    private void leaderLossLosesNoAcknowledgedWrite(boolean crash) throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            if (!crash) {
                // the leader hands over to a member it has seen as FOLLOWER
                Await.until(
                        Duration.ofSeconds(10),
                        "the leader to see both others as followers",
                        () -> c.node(leader).cluster().members().stream()
                                .filter(m -> !m.address().equals(c.peer(leader)))
                                .allMatch(m -> m.state() == MemberState.FOLLOWER));
            }
            WriteLoad load = new WriteLoad(c, CLIENTS, 15_000).start();
            try {
                runAndStopLeader(c, load, leader, crash);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; writes so far: " + load.summary(), e);
            } finally {
                load.close();
            }

            assertEquals(List.of(), load.with(WriteLoad.Outcome.HUNG), "writes that never ended");
            assertEquals(List.of(), load.with(WriteLoad.Outcome.OTHER), "writes that ended with an untyped error");
            Set<Long> revisions = new HashSet<>();
            for (WriteLoad.Write w : load.with(WriteLoad.Outcome.ACKNOWLEDGED)) {
                assertTrue(revisions.add(w.revision()), "two acknowledged writes at revision " + w.revision());
            }
            c.awaitIdentical();
            checkAgainstHistory(
                    c, load, List.of(0, 1, 2).stream().filter(i -> i != leader).toList());

            c.startNode(leader);
            c.awaitStable();
            c.awaitIdentical();
            checkAgainstHistory(c, load, List.of(leader));
            System.out.printf(
                    "history: %d acknowledged, %d not committed, %d unknown%n",
                    load.with(WriteLoad.Outcome.ACKNOWLEDGED).size(),
                    load.with(WriteLoad.Outcome.NOT_COMMITTED).size(),
                    load.with(WriteLoad.Outcome.UNKNOWN).size());
        }
    }

    private static void runAndStopLeader(TestCluster c, WriteLoad load, int leader, boolean crash) {
        Await.until(Duration.ofSeconds(20), "100 acknowledged writes", () -> load.acknowledged() >= 100);
        long stopping = System.nanoTime();
        if (crash) {
            c.haltNode(leader);
        } else {
            c.stopNode(leader);
            // a graceful stop returns once leadership is handed over, not an election timeout later
            assertTrue(
                    c.running().stream()
                            .anyMatch(n -> n.cluster().self().equals(n.cluster().leader())),
                    "close() of the leader returned before another node led");
        }
        long stopped = System.nanoTime();
        Await.until(
                Duration.ofSeconds(10),
                "a write started after the leader stopped to be acknowledged",
                () -> load.lastAcknowledgedStart() > stopped);
        System.out.printf(
                "leader %s %s in %d ms; writes resumed %d ms after it began to stop%n",
                c.peer(leader), crash ? "halted" : "closed", ms(stopped - stopping), ms(System.nanoTime() - stopping));
        int resumed = load.acknowledged();
        Await.until(
                Duration.ofSeconds(20),
                "100 more acknowledged writes on the new leader",
                () -> load.acknowledged() >= resumed + 100);
    }

    private static void checkAgainstHistory(TestCluster c, WriteLoad load, List<Integer> nodes) {
        for (int i : nodes) {
            for (WriteLoad.Write w : load.history()) {
                KvEntry e = c.node(i).get(KS, bytes(w.key()));
                switch (w.outcome()) {
                    case ACKNOWLEDGED -> {
                        assertNotNull(e, "node " + i + " lost acknowledged write " + w);
                        assertEquals(w.value(), new String(e.value(), StandardCharsets.UTF_8), w.key());
                        assertEquals(
                                w.revision(), e.modRevision(), "node " + i + ": " + w.key() + " was applied again");
                        assertEquals(w.revision(), e.createRevision(), "node " + i + ": " + w.key());
                    }
                    case NOT_COMMITTED ->
                        assertNull(
                                e,
                                "node " + i + " applied " + w.key() + ", whose write failed as never committed: "
                                        + w.error());
                    default -> {
                        if (e != null) {
                            assertEquals(w.value(), new String(e.value(), StandardCharsets.UTF_8), w.key());
                        }
                    }
                }
            }
        }
    }

    /**
     * Two of three nodes stop. The survivor fails writes within about the request timeout (never
     * hangs), with NoLeaderException once it knows it has no leader, and says so in readiness;
     * once a second node is back, writes work again and the refused write is nowhere.
     */
    @Test
    void minoritySideFailsWritesPromptlyAndRecoversWithQuorum() throws Exception {
        long requestTimeoutMs = 1500;
        try (TestCluster c = TestCluster.start(dir, 3, cfg -> cfg.withTimeouts(600, requestTimeoutMs))) {
            int survivor = c.awaitStable();
            c.put(survivor, "before", "v");
            int a = c.other(survivor);
            int b = c.other(survivor, a);
            c.stopNode(a);
            c.stopNode(b);

            // The survivor may still believe it leads: the write may be appended to its log, so
            // either outcome-unknown or no-leader is right, but it must end in about the timeout.
            long t0 = System.nanoTime();
            CompletableFuture<WriteResult> first = c.node(survivor).write(Command.put(KS, bytes("w1"), bytes("v")));
            ExecutionException e1 = assertThrows(
                    ExecutionException.class, () -> first.get(requestTimeoutMs + 5000, TimeUnit.MILLISECONDS));
            assertInstanceOf(KvException.class, e1.getCause());
            assertTrue(
                    ms(System.nanoTime() - t0) < requestTimeoutMs + 2500, "took " + ms(System.nanoTime() - t0) + " ms");

            Await.until(
                    Duration.ofSeconds(5),
                    "survivor not ready",
                    () -> !c.node(survivor).readiness().ready());
            Readiness r = c.node(survivor).readiness();
            assertNotNull(r.reason());
            assertTrue(r.reason().contains("leader"), r.reason());
            Await.until(
                    Duration.ofSeconds(5),
                    "no leader in the view",
                    () -> c.node(survivor).cluster().leader() == null);

            long t1 = System.nanoTime();
            CompletableFuture<WriteResult> second = c.node(survivor).write(Command.put(KS, bytes("w2"), bytes("v")));
            ExecutionException e2 = assertThrows(
                    ExecutionException.class, () -> second.get(requestTimeoutMs + 5000, TimeUnit.MILLISECONDS));
            long took = ms(System.nanoTime() - t1);
            assertInstanceOf(NoLeaderException.class, e2.getCause());
            assertTrue(took >= requestTimeoutMs - 100 && took < requestTimeoutMs + 2500, "took " + took + " ms");
            assertFalse(c.node(survivor).readiness().ready());

            c.startNode(a);
            c.awaitLeader();
            c.put(survivor, "after", "v");
            c.awaitAllReady();
            c.awaitIdentical();
            for (int i : List.of(survivor, a)) {
                assertEquals("v", c.value(i, "before"));
                assertEquals("v", c.value(i, "after"));
                assertNull(c.value(i, "w2"), "a write refused with NoLeaderException was applied on node " + i);
            }
        }
    }

    /**
     * A rolling stop: a follower stops, then at once the leader, whose last status report still
     * shows that follower as FOLLOWER. close() must still hand leadership to a live member, and
     * promptly: trying the stopped one costs one election timeout, not the whole hand-over budget.
     */
    @Test
    void leaderClosedRightAfterAFollowerStillHandsOverPromptly() {
        try (TestCluster c = TestCluster.start(dir, 5)) {
            int leader = c.awaitStable();
            Await.until(
                    Duration.ofSeconds(10),
                    "the leader to see every other member as follower",
                    () -> c.node(leader).cluster().members().stream()
                            .filter(m -> !m.address().equals(c.peer(leader)))
                            .allMatch(m -> m.state() == MemberState.FOLLOWER));
            // members are tried in configuration order: stop the first follower in it
            c.stopNode(c.other(leader));
            long t0 = System.nanoTime();
            c.stopNode(leader);
            long took = ms(System.nanoTime() - t0);
            assertTrue(
                    c.running().stream()
                            .anyMatch(n -> n.cluster().self().equals(n.cluster().leader())),
                    "close() of the leader returned before another node led (took " + took + " ms)");
            assertTrue(took < 2500, "close() of the leader took " + took + " ms");
            c.put(c.awaitLeader(), "after", "v");
        }
    }

    /**
     * A write still waiting for a leader when its node closes ends at once, as refused (nothing
     * was proposed), instead of never completing.
     */
    @Test
    void closingANodeEndsTheWritesWaitingOnIt() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3, cfg -> cfg.withTimeouts(600, 30_000))) {
            int survivor = c.awaitStable();
            c.stopNode(c.other(survivor));
            c.stopNode(c.other(survivor));
            Await.until(
                    Duration.ofSeconds(5),
                    "no leader",
                    () -> c.node(survivor).cluster().leader() == null);
            RaftKvStore node = c.node(survivor);
            CompletableFuture<WriteResult> waiting = node.write(Command.put(KS, bytes("w"), bytes("v")));
            assertFalse(waiting.isDone());

            c.stopNode(survivor);
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> waiting.get(5, TimeUnit.SECONDS),
                    "the write was still pending 5 s after its node closed");
            assertInstanceOf(StoreUnavailableException.class, e.getCause(), String.valueOf(e.getCause()));
        }
    }

    /** After close() every call fails with StoreUnavailableException: futures fail, nothing throws something else. */
    @Test
    void closedStoreRefusesEveryCall() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            c.awaitLeader();
            c.put(0, "k", "v");
            RaftKvStore node = c.node(0);
            c.stopNode(0);
            ExecutionException w = assertThrows(
                    ExecutionException.class,
                    () -> node.write(Command.put(KS, bytes("k2"), bytes("v"))).get(5, TimeUnit.SECONDS));
            assertInstanceOf(StoreUnavailableException.class, w.getCause());
            ExecutionException l = assertThrows(
                    ExecutionException.class, () -> node.linearizable().get(5, TimeUnit.SECONDS));
            assertInstanceOf(KvException.class, l.getCause());
            assertThrows(StoreUnavailableException.class, () -> node.get(KS, bytes("k")));
            assertThrows(StoreUnavailableException.class, () -> node.scan(KS, bytes(""), 10));
            assertFalse(node.readiness().ready());
        }
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
