package io.lodestar.kv.raft;

import static io.lodestar.kv.raft.TestCluster.KS;
import static io.lodestar.kv.raft.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvStoreConfig;
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
     * Node 2 has another secret. JRaft's own RPCs are not authenticated yet, so it still
     * replicates; but the leader refuses its forwarded writes, and node 2 fails them at once with
     * a StoreUnavailableException that says the secrets differ. The other nodes keep working.
     */
    @Test
    void nodeWithWrongSecretCannotForwardWrites() throws Exception {
        // Nodes 0 and 1 form the quorum and elect one of them before node 2 joins, so it follows.
        TestCluster c = TestCluster.create(dir, 3, (i, cfg) -> i == 2 ? withSecret(cfg, WRONG) : cfg);
        try (c) {
            c.startNode(0);
            c.startNode(1);
            int leader = c.awaitLeader();
            // nodes 0 and 1 publish their HTTP addresses through the store: let that settle first
            Await.until(
                    Duration.ofSeconds(20),
                    "nodes 0 and 1 to publish their HTTP addresses",
                    () -> c.node(leader).cluster().members().stream()
                            .filter(m -> !m.address().equals(c.peer(2)))
                            .allMatch(m -> m.httpAddress() != null));
            c.startNode(2);
            c.put(leader, "before", "v");
            Await.until(
                    Duration.ofSeconds(20), "node 2 to replicate through Raft", () -> "v".equals(c.value(2, "before")));
            long revision = c.node(leader).revision();

            long t0 = System.nanoTime();
            CompletableFuture<WriteResult> refused = c.node(2).write(Command.put(KS, bytes("from-2"), bytes("v")));
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(10, TimeUnit.SECONDS));
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertInstanceOf(StoreUnavailableException.class, e.getCause(), String.valueOf(e.getCause()));
            String message = e.getCause().getMessage();
            assertTrue(message.contains("secret") || message.contains("verif"), message);
            assertTrue(took < 3000, "refusal took " + took + " ms");

            for (int i = 0; i < 2; i++) {
                WriteResult ok = c.put(i, "from-" + i, "v");
                assertTrue(ok.succeeded());
            }
            Await.until(Duration.ofSeconds(20), "node 2 to replicate", () -> "v".equals(c.value(2, "from-1")));
            c.awaitIdentical();
            for (int i = 0; i < 3; i++) {
                assertNull(c.value(i, "from-2"), "the refused write reached node " + i);
                assertEquals(revision + 2, c.node(i).revision(), "node " + i);
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
            assertInstanceOf(StoreUnavailableException.class, unknown.getCause());
            assertTrue(
                    unknown.getCause().getMessage().contains("no handler"),
                    unknown.getCause().getMessage());

            ExecutionException forged = assertThrows(
                    ExecutionException.class,
                    () -> c.node(2)
                            .peers()
                            .send(c.peer(1), "echo", bytes("x"), 5000)
                            .get(10, TimeUnit.SECONDS));
            assertInstanceOf(StoreUnavailableException.class, forged.getCause());
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
                c.blockCacheBytes());
    }
}
