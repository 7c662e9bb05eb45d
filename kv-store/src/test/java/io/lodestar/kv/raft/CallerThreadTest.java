package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Command;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A caller's continuation on a future the store handed out never runs on one of JRaft's threads
 * (its state machine, node, log, read-index or RPC threads), where it would stall replication for
 * every other caller: futures complete on the store's own threads ("kv-*").
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallerThreadTest {
    private static final int ROUNDS = 50;

    @TempDir
    Path dir;

    @Test
    void oneNodeWritesAndReadsCompleteOnStoreThreads() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            RaftKvStore node = c.node(c.awaitStable());
            assertOnlyStoreThreads(continuationThreads(node, "one-node"));
        }
    }

    @Test
    void leaderAndFollowerWritesAndReadsCompleteOnStoreThreads() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitStable();
            Set<String> seen = ConcurrentHashMap.newKeySet();
            seen.addAll(continuationThreads(c.node(leader), "leader"));
            // a follower forwards its writes and completes them once it has applied them itself
            seen.addAll(continuationThreads(c.node(c.other(leader)), "follower"));
            assertOnlyStoreThreads(seen);
        }
    }

    /** The threads that ran continuations attached at once to writes and linearizable reads. */
    private static Set<String> continuationThreads(KvStore store, String prefix) throws Exception {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            Command put = Command.put(TestCluster.KS, TestCluster.bytes(prefix + i), TestCluster.bytes("v" + i));
            all.add(store.write(put)
                    .thenApply(r -> threads.add(Thread.currentThread().getName())));
            all.add(store.linearizable()
                    .thenApply(v -> threads.add(Thread.currentThread().getName())));
        }
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        return threads;
    }

    private static void assertOnlyStoreThreads(Set<String> threads) {
        String test = Thread.currentThread().getName();
        for (String name : threads) {
            // the test's own thread runs a continuation attached to a future already complete
            assertTrue(
                    name.startsWith("kv-") || name.equals(test),
                    "a caller's continuation ran on " + name + " (all seen: " + threads + ")");
        }
    }
}
