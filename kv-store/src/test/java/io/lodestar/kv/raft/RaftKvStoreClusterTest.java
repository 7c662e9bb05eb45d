package io.lodestar.kv.raft;

import static io.lodestar.kv.raft.TestCluster.KS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.rocks.RocksEngine;
import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Replication, read-your-write, linearizable reads, the cluster view and input validation. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftKvStoreClusterTest {
    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void singleNodeWritesAndReadsBack() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            c.awaitLeader();
            WriteResult r = c.node(0).write(Command.put(KS, b("k"), b("v"))).get(10, TimeUnit.SECONDS);
            assertTrue(r.succeeded());
            KvEntry e = c.node(0).get(KS, b("k"));
            assertNotNull(e);
            assertEquals("v", new String(e.value(), StandardCharsets.UTF_8));
            assertEquals(r.revision(), e.modRevision());
        }
    }

    @Test
    void writesThroughFollowersReachEveryReplica() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitLeader();
            c.awaitAllReady();
            long previous = 0;
            for (int i = 0; i < 3; i++) {
                WriteResult r = c.node(i)
                        .write(Command.put(KS, b("from-" + i), b("v" + i)))
                        .get(10, TimeUnit.SECONDS);
                assertTrue(r.succeeded());
                assertTrue(r.revision() > previous, "revisions strictly increase");
                previous = r.revision();
                // read-your-write on the node that took it, leader or not
                assertNotNull(c.node(i).get(KS, b("from-" + i)), "node " + i + " (leader " + leader + ")");
            }
            c.awaitIdentical();
            for (int i = 0; i < 3; i++) {
                for (int from = 0; from < 3; from++) {
                    assertEquals("v" + from, c.value(i, "from-" + from), "node " + i);
                }
            }
            assertFalse(c.node((leader + 1) % 3).cluster().members().isEmpty());
        }
    }

    /**
     * A follower answers a forwarded write only once it has applied it itself: with no wait, a read
     * on that follower sees the value at the acknowledged revision, every time.
     */
    @Test
    void followerReadsItsOwnForwardedWriteImmediately() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            for (int round = 0; round < 30; round++) {
                for (int i = 0; i < 3; i++) {
                    if (i == leader) {
                        continue;
                    }
                    String key = "ryw-" + i + "-" + round;
                    WriteResult r = c.node(i)
                            .write(Command.put(KS, b(key), b("v" + round)))
                            .get(10, TimeUnit.SECONDS);
                    KvEntry e = c.node(i).get(KS, b(key));
                    assertNotNull(e, "follower " + i + " does not see its own write " + key);
                    assertEquals("v" + round, new String(e.value(), StandardCharsets.UTF_8));
                    assertEquals(r.revision(), e.modRevision());
                    assertTrue(c.node(i).revision() >= r.revision(), "follower revision behind its own write");
                }
            }
        }
    }

    /**
     * A write acknowledged by the leader is committed, but a follower learns that only with the
     * next heartbeat; linearizable() on the follower must wait for it, so the read right after it
     * sees the write every time.
     */
    @Test
    void linearizableReadOnFollowerSeesWriteAcknowledgedElsewhere() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            int follower = c.other(leader);
            for (int round = 0; round < 40; round++) {
                String key = "lin-" + round;
                WriteResult r = c.node(leader)
                        .write(Command.put(KS, b(key), b("v" + round)))
                        .get(10, TimeUnit.SECONDS);
                c.node(follower).linearizable().get(10, TimeUnit.SECONDS);
                KvEntry e = c.node(follower).get(KS, b(key));
                assertNotNull(e, "round " + round + ": follower misses " + key + " after linearizable()");
                assertEquals(r.revision(), e.modRevision());
            }
        }
    }

    /**
     * Every node's view names the same leader, lists all three members with the HTTP address each
     * published, one LEADER and two FOLLOWERs; a stopped leader shows as UNREACHABLE within seconds.
     */
    @Test
    void clusterViewShowsOneLeaderAndMarksAStoppedLeaderUnreachable() {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            String healthy = "every view: leader " + c.peer(leader) + ", one LEADER, two FOLLOWERs, http addresses";
            Await.until(Duration.ofSeconds(10), healthy, () -> {
                for (int i = 0; i < 3; i++) {
                    if (!viewIsHealthy(c, c.node(i).cluster(), i, leader, List.of(0, 1, 2))) {
                        return false;
                    }
                }
                return true;
            });
            for (int i = 0; i < 3; i++) {
                ClusterView v = c.node(i).cluster();
                assertEquals(c.peer(i), v.self());
                assertEquals(3, v.members().size(), v.toString());
                assertTrue(v.term() > 0, v.toString());
            }

            c.haltNode(leader);
            int next = c.awaitLeader();
            assertTrue(next != leader);
            List<Integer> alive =
                    List.of(0, 1, 2).stream().filter(i -> i != leader).toList();
            String agreed =
                    "the survivors to agree on leader " + c.peer(next) + " and show " + c.peer(leader) + " UNREACHABLE";
            Await.until(
                    Duration.ofSeconds(10),
                    agreed,
                    () -> alive.stream().allMatch(i -> {
                        ClusterView v = c.node(i).cluster();
                        return c.peer(next).equals(v.leader())
                                && stateOf(v, c.peer(leader)) == MemberState.UNREACHABLE
                                && viewIsHealthy(c, v, i, next, alive);
                    }));
            for (int i : alive) {
                ClusterView v = c.node(i).cluster();
                assertEquals(
                        TestCluster.httpAddress(leader),
                        v.members().stream()
                                .filter(m -> m.address().equals(c.peer(leader)))
                                .findFirst()
                                .orElseThrow()
                                .httpAddress(),
                        "a stopped member keeps the HTTP address it published");
            }
        }
    }

    private static boolean viewIsHealthy(TestCluster c, ClusterView v, int self, int leader, List<Integer> alive) {
        if (!c.peer(leader).equals(v.leader()) || v.members().size() != 3) {
            return false;
        }
        Map<MemberState, Long> counts =
                v.members().stream().collect(Collectors.groupingBy(ClusterView.Member::state, Collectors.counting()));
        if (counts.getOrDefault(MemberState.LEADER, 0L) != 1) {
            return false;
        }
        for (int i : alive) {
            MemberState expected = i == leader ? MemberState.LEADER : MemberState.FOLLOWER;
            if (stateOf(v, c.peer(i)) != expected) {
                return false;
            }
        }
        for (int i = 0; i < 3; i++) {
            int member = i;
            if (v.members().stream()
                    .noneMatch(m -> m.address().equals(c.peer(member))
                            && TestCluster.httpAddress(member).equals(m.httpAddress()))) {
                return false;
            }
        }
        return true;
    }

    private static MemberState stateOf(ClusterView v, String member) {
        return v.members().stream()
                .filter(m -> m.address().equals(member))
                .map(ClusterView.Member::state)
                .findFirst()
                .orElse(null);
    }

    /**
     * Bad input fails the write's future with InvalidRequestException naming the field, on the
     * leader and on a follower alike, and nothing reaches the log: the revision does not move.
     */
    @Test
    void invalidCommandsFailNamingTheFieldAndChangeNothing() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3, cfg -> cfg.withMaxValueBytes(1024))) {
            int leader = c.awaitStable();
            c.put(leader, "existing", "v");
            c.awaitIdentical();
            long revision = c.node(leader).revision();
            Map<String, Command> invalid = new java.util.LinkedHashMap<>();
            invalid.put("key", Command.put(KS, new byte[0], b("v")));
            invalid.put("key ", Command.put(KS, null, b("v")));
            invalid.put("key  ", Command.put(KS, new byte[CommandValidator.MAX_KEY_BYTES + 1], b("v")));
            invalid.put("keyspace", Command.put("no-such-keyspace", b("k"), b("v")));
            invalid.put("keyspace ", Command.put(null, b("k"), b("v")));
            invalid.put("keyspace  ", Command.put(RocksEngine.META, b("applied_index"), b("v")));
            invalid.put("keyspace   ", Command.put(MemberDirectory.KEYSPACE, b(c.peer(leader)), b("evil:1")));
            invalid.put("value", Command.put(KS, b("k"), new byte[1025]));
            invalid.put(
                    "value ",
                    Command.batch(List.of(Op.put(KS, b("a"), new byte[600]), Op.put(KS, b("b"), new byte[600]))));
            invalid.put("value  ", Command.put(KS, b("k"), null));
            invalid.put("ops", Command.batch(List.of()));
            invalid.put("ops ", Command.of(List.of(Compare.modRevision(KS, b("existing"), 0)), List.of()));
            invalid.put(
                    "key   ",
                    Command.of(List.of(Compare.modRevision(KS, new byte[0], 0)), List.of(Op.put(KS, b("k"), b("v")))));
            invalid.put("ops  ", null);
            for (int node : List.of(leader, c.other(leader))) {
                for (Map.Entry<String, Command> bad : invalid.entrySet()) {
                    String field = bad.getKey().trim();
                    CompletableFuture<WriteResult> f = c.node(node).write(bad.getValue());
                    ExecutionException e = assertThrows(
                            ExecutionException.class,
                            () -> f.get(10, TimeUnit.SECONDS),
                            "node " + node + ", bad " + bad.getKey());
                    InvalidRequestException ire = assertInstanceOf(
                            InvalidRequestException.class, e.getCause(), "node " + node + ", bad " + bad.getKey());
                    assertEquals(field, ire.field(), ire.getMessage());
                    assertTrue(ire.getMessage().startsWith(field + ":"), ire.getMessage());
                }
            }
            assertThrows(InvalidRequestException.class, () -> c.node(leader).get("no-such-keyspace", b("k")));
            assertThrows(InvalidRequestException.class, () -> c.node(leader).scan(null, b(""), 1));
            // A valid write after the bad ones lands at the very next revision: nothing was proposed in between.
            WriteResult ok = c.put(c.other(leader), "after", "v");
            assertEquals(revision + 1, ok.revision());
            c.awaitIdentical();
            for (int i = 0; i < 3; i++) {
                assertEquals(revision + 1, c.node(i).revision(), "node " + i);
                assertEquals(null, c.value(i, "k"));
            }
        }
    }
}
