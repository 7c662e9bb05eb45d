package io.lodestar.kv.testing;

import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.raft.RaftKvStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** A real one-node Raft store on RocksDB for the domain tests: no mocks, no twins. */
public final class OneNodeStore {
    private static final Duration READY_WITHIN = Duration.ofSeconds(30);

    private OneNodeStore() {}

    /** Starts a new store in {@code dir} on a free loopback port; see {@link #start(Path, int, Set)}. */
    public static RaftKvStore start(Path dir, Set<String> keyspaces) throws Exception {
        return start(dir, FreePorts.next(), keyspaces);
    }

    /**
     * Starts a store in {@code dir} on {@code port} with {@code keyspaces} and waits (30 s at most)
     * until it takes writes. To start again on a directory a previous start left, pass the same port:
     * the Raft group's stored configuration names it.
     */
    public static RaftKvStore start(Path dir, int port, Set<String> keyspaces) throws Exception {
        return start(dir, port, keyspaces, CountRules.NONE);
    }

    /** As {@link #start(Path, Set)}, counting keys by {@code counting}. */
    public static RaftKvStore start(Path dir, Set<String> keyspaces, CountRules counting) throws Exception {
        return start(dir, FreePorts.next(), keyspaces, counting);
    }

    /** As {@link #start(Path, int, Set)}, counting keys by {@code counting}. */
    public static RaftKvStore start(Path dir, int port, Set<String> keyspaces, CountRules counting) throws Exception {
        RaftKvStore store = RaftKvStore.start(KvStoreConfig.of(
                        "127.0.0.1",
                        port,
                        List.of(),
                        dir,
                        "one-node-test-secret".getBytes(StandardCharsets.UTF_8),
                        keyspaces)
                .withCounting(counting));
        try {
            Await.until(
                    READY_WITHIN,
                    "the store ready",
                    () -> store.readiness().ready(),
                    () -> store.readiness().reason());
        } catch (AssertionError notReady) {
            store.close();
            throw notReady;
        }
        return store;
    }
}
