package io.lodestar.kv.raft;

import static io.lodestar.kv.raft.TestCluster.KS;
import static io.lodestar.kv.raft.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The node-to-node channel trusts only peers holding the cluster secret. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftKvStoreChannelAuthTest {
    private static final byte[] WRONG = "not-the-cluster-secret".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    /**
     * Node 2 has another secret. The Raft port admits no connection that cannot prove the
     * cluster's: the leader cannot replicate to it, it cannot campaign, its writes fail, and the
     * other two carry on as a group of three with one member down.
     */
    @Test
    void nodeWithWrongSecretIsKeptOutOfTheGroup() throws Exception {
        // Nodes 0 and 1 form the quorum and elect one of them before node 2 starts.
        TestCluster c = TestCluster.create(dir, 3, (i, cfg) -> i == 2 ? withSecret(cfg, WRONG) : cfg);
        try (c) {
            c.startNode(0);
            c.startNode(1);
            int leader = c.awaitLeader();
            c.put(leader, "before", "v");
            long term = c.node(leader).cluster().term();
            c.startNode(2);

            // It never hears of a leader, so its write fails as any write on a cut-off node does.
            CompletableFuture<WriteResult> refused = c.node(2).write(Command.put(KS, bytes("from-2"), bytes("v")));
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(20, TimeUnit.SECONDS));
            assertInstanceOf(NoLeaderException.class, e.getCause(), String.valueOf(e.getCause()));

            for (int i = 0; i < 2; i++) {
                assertTrue(c.put(i, "from-" + i, "v").succeeded());
            }
            // A bounded look, not a wait: by now the leader has sent node 2 dozens of heartbeats
            // (every tenth of an election timeout) and node 2 has campaigned more than once.
            Await.holdsFor(
                    Duration.ofMillis(5L * c.config(0).electionTimeoutMs()),
                    "node 2 to hold nothing and the group to keep its leader and term",
                    () -> c.value(2, "before") == null
                            && c.node(2).revision() == 0
                            && c.node(leader).cluster().term() == term
                            && c.peer(leader).equals(c.node(leader).cluster().leader()));
            for (int i = 0; i < 2; i++) {
                assertNull(c.value(i, "from-2"), "the refused write reached node " + i);
                assertEquals("v", c.value(i, "from-1"), "node " + i);
            }
        }
    }

    /**
     * Peer messages reach the handler a member registered for their topic, with the sender's
     * address; an unknown topic and a sender with another secret are refused, and the handler
     * never sees the latter.
     */
    @Test
    void peerMessagesReachOnlyTheirTopicsHandlerAndOnlyFromHoldersOfTheSecret() throws Exception {
        TestCluster c = TestCluster.create(dir, 3, (i, cfg) -> i == 2 ? withSecret(cfg, WRONG) : cfg);
        try (c) {
            c.startNode(0);
            c.startNode(1);
            c.startNode(2);
            java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            c.node(1).peers().handle("echo", (from, payload) -> {
                seen.add(from);
                return CompletableFuture.completedFuture(
                        ("echo:" + new String(payload, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
            });
            byte[] answer =
                    c.node(0).peers().send(c.peer(1), "echo", bytes("hi"), 5000).get(10, TimeUnit.SECONDS);
            assertEquals("echo:hi", new String(answer, StandardCharsets.UTF_8));
            assertEquals(java.util.List.of(c.peer(0)), seen, "the handler learns who sent it");

            ExecutionException unknown = assertThrows(
                    ExecutionException.class,
                    () -> c.node(0)
                            .peers()
                            .send(c.peer(1), "nobody-listens", bytes("x"), 5000)
                            .get(10, TimeUnit.SECONDS));
            assertInstanceOf(StoreUnavailableException.class, unknown.getCause(), String.valueOf(unknown.getCause()));
            assertTrue(
                    unknown.getCause().getMessage().contains("no handler"),
                    unknown.getCause().getMessage());

            ExecutionException forged = assertThrows(
                    ExecutionException.class,
                    () -> c.node(2)
                            .peers()
                            .send(c.peer(1), "echo", bytes("x"), 5000)
                            .get(10, TimeUnit.SECONDS));
            assertInstanceOf(StoreUnavailableException.class, forged.getCause(), String.valueOf(forged.getCause()));
            assertEquals(1, seen.size(), "a frame under another secret never reaches the handler");
        }
    }

    private static KvStoreConfig withSecret(KvStoreConfig c, byte[] secret) {
        return new KvStoreConfig(
                c.host(),
                c.raftPort(),
                c.peers(),
                c.dataDir(),
                secret,
                c.keyspaces(),
                c.httpAddress(),
                c.snapshotIntervalSecs(),
                c.snapshotEntries(),
                c.snapshotBytes(),
                c.diskReserveBytes(),
                c.electionTimeoutMs(),
                c.requestTimeoutMs(),
                c.maxValueBytes(),
                c.blockCacheBytes(),
                c.raftPortSettings(),
                c.counting(),
                c.forceNewCluster());
    }
}
