package io.lodestar.kv.raft;

import static io.lodestar.kv.raft.TestCluster.KS;
import static io.lodestar.kv.raft.TestCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.Failures;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.count.CountRules;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Key counts and caps through Raft: a capped put past its scope's cap fails the write with the
 * error naming the limit and writes nothing, on the leader and through a follower; every replica
 * counts alike, through restarts, snapshots and snapshot installs; a store written before counts
 * existed is counted when it starts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftKvStoreCountsTest {
    /** Keys of the test keyspace count by their part before the first NUL. */
    private static final CountRules BY_TENANT = CountRules.of(Map.of(KS, 1));

    private static final Cap THREE = Cap.of("test.keys-per-tenant", 3, "the keys of tenant t");

    @TempDir
    Path dir;

    private static byte[] key(String tenant, String name) {
        return bytes(tenant + "\0" + name);
    }

    private static Command capped(String tenant, String name) {
        return Command.batch(List.of(Op.put(KS, key(tenant, name), bytes("v")).withCap(THREE)));
    }

    private static long count(RaftKvStore node, String tenant) {
        return node.countedKeys(KS, bytes(tenant + "\0"));
    }

    private static LimitExceededException refusal(RaftKvStore node, Command command) {
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> node.write(command).get(15, TimeUnit.SECONDS));
        return assertInstanceOf(LimitExceededException.class, Failures.cause(e));
    }

    @Test
    void aPutPastItsCapFailsNamingTheLimitAndTheNodeServesOn() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1, cfg -> cfg.withCounting(BY_TENANT))) {
            RaftKvStore node = c.node(c.awaitLeader());
            List<String> refused = new CopyOnWriteArrayList<>();
            node.onCapRefused(refused::add);
            for (String name : List.of("a", "b", "c")) {
                node.write(capped("t", name)).get(15, TimeUnit.SECONDS);
            }
            long revision = node.revision();

            LimitExceededException e = refusal(node, capped("t", "d"));
            assertEquals("test.keys-per-tenant", e.limit());
            assertTrue(e.getMessage().contains("the keys of tenant t"), e.getMessage());
            assertEquals(List.of("test.keys-per-tenant"), refused);
            assertNull(node.get(KS, key("t", "d")));
            assertEquals(revision, node.revision(), "nothing written");
            assertEquals(3, count(node, "t"));

            assertTrue(node.write(capped("t", "a")).get(15, TimeUnit.SECONDS).succeeded(), "a replacing put");
            assertTrue(node.write(capped("u", "a")).get(15, TimeUnit.SECONDS).succeeded(), "another tenant");
            node.write(Command.delete(KS, key("t", "b"))).get(15, TimeUnit.SECONDS);
            assertTrue(node.write(capped("t", "d")).get(15, TimeUnit.SECONDS).succeeded(), "room freed");
            assertEquals(3, count(node, "t"));
        }
    }

    @Test
    void aCapOnAnUncountedKeyIsAnInvalidRequest() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1, cfg -> cfg.withCounting(BY_TENANT))) {
            RaftKvStore node = c.node(c.awaitLeader());
            Command noScope = Command.batch(
                    List.of(Op.put(KS, bytes("no-separator"), bytes("v")).withCap(THREE)));
            ExecutionException e = assertThrows(
                    ExecutionException.class, () -> node.write(noScope).get(15, TimeUnit.SECONDS));
            assertEquals("cap", ((InvalidRequestException) Failures.cause(e)).subject());
            assertThrows(IllegalArgumentException.class, () -> node.countedKeys(KS, bytes("t")));
        }
    }

    @Test
    void countsSurviveASnapshotAndARestart() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1, cfg -> cfg.withCounting(BY_TENANT))) {
            RaftKvStore node = c.node(c.awaitLeader());
            node.write(capped("t", "a")).get(15, TimeUnit.SECONDS);
            node.write(capped("t", "b")).get(15, TimeUnit.SECONDS);
            node.snapshot().get(15, TimeUnit.SECONDS);
            node.write(capped("t", "c")).get(15, TimeUnit.SECONDS);
            c.stopNode(0);

            RaftKvStore again = c.startNode(0);
            assertEquals(3, count(again, "t"));
            c.awaitLeader();
            assertEquals(
                    "test.keys-per-tenant", refusal(again, capped("t", "d")).limit());
        }
    }

    @Test
    void aStoreWrittenBeforeCountsIsCountedWhenItStarts() throws Exception {
        AtomicReference<CountRules> rules = new AtomicReference<>(CountRules.NONE);
        try (TestCluster c = TestCluster.start(dir, 1, cfg -> cfg.withCounting(rules.get()))) {
            RaftKvStore legacy = c.node(c.awaitLeader());
            for (String name : List.of("a", "b", "c")) {
                legacy.write(Command.put(KS, key("t", name), bytes("v"))).get(15, TimeUnit.SECONDS);
            }
            legacy.write(Command.put(KS, key("u", "a"), bytes("v"))).get(15, TimeUnit.SECONDS);
            c.stopNode(0);

            rules.set(BY_TENANT);
            RaftKvStore counted = c.startNode(0);
            assertEquals(3, count(counted, "t"));
            assertEquals(1, count(counted, "u"));
            c.awaitLeader();
            assertEquals(
                    "test.keys-per-tenant", refusal(counted, capped("t", "d")).limit());
        }
    }

    @Test
    void replicasCountAlikeThroughForwardedRefusalsAndASnapshotInstall() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3, cfg -> cfg.withCounting(BY_TENANT))) {
            int leader = c.awaitStable();
            int follower = c.other(leader);
            for (String name : List.of("a", "b", "c")) {
                c.node(follower).write(capped("t", name)).get(15, TimeUnit.SECONDS);
            }
            // refused on the leader, answered to the follower that forwarded it
            assertEquals(
                    "test.keys-per-tenant",
                    refusal(c.node(follower), capped("t", "d")).limit());
            c.node(leader).write(capped("u", "a")).get(15, TimeUnit.SECONDS);
            c.awaitIdentical();
            for (RaftKvStore n : c.running()) {
                assertEquals(3, count(n, "t"));
                assertEquals(1, count(n, "u"));
                assertNull(n.get(KS, key("t", "d")));
            }

            // a member wiped and past the compacted log installs a snapshot: its counts with it
            int wiped = c.other(leader, follower);
            c.stopNode(wiped);
            c.node(leader).write(Command.delete(KS, key("t", "a"))).get(15, TimeUnit.SECONDS);
            for (int round = 0; round < 2; round++) {
                c.node(leader).write(capped("v", "r" + round)).get(15, TimeUnit.SECONDS);
                c.awaitIdentical();
                for (RaftKvStore n : c.running()) {
                    n.snapshot().get(15, TimeUnit.SECONDS);
                }
            }
            c.wipe(wiped);
            c.startNode(wiped);
            c.awaitIdentical();
            assertNotEquals("gen-1", c.activeGeneration(wiped), "the wiped node did not install a snapshot");
            for (RaftKvStore n : c.running()) {
                assertEquals(2, count(n, "t"));
                assertEquals(2, count(n, "v"));
            }
            assertTrue(c.node(wiped)
                    .write(capped("t", "d"))
                    .get(15, TimeUnit.SECONDS)
                    .succeeded());
            assertEquals(
                    "test.keys-per-tenant",
                    refusal(c.node(wiped), capped("t", "e")).limit());
            c.awaitIdentical();
            for (RaftKvStore n : c.running()) {
                assertEquals(3, count(n, "t"), "counted alike on every member");
            }
        }
    }
}
