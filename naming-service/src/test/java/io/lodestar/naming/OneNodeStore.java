package io.lodestar.naming;

import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.FreePorts;
import io.lodestar.kv.raft.RaftKvStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real one-node Raft store on RocksDB for the naming tests: no mocks, no twins. */
public final class OneNodeStore {
    private OneNodeStore() {}

    /** Starts a new store in {@code dir} on a free loopback port; see {@link #start(Path, int)}. */
    public static RaftKvStore start(Path dir) throws Exception {
        return start(dir, FreePorts.next());
    }

    /**
     * Starts a store in {@code dir} on {@code port} with the naming keyspaces and waits (30 s at most)
     * until it takes writes. To start again on a directory a previous start left, pass the same port:
     * the Raft group's stored configuration names it.
     */
    public static RaftKvStore start(Path dir, int port) throws Exception {
        RaftKvStore store = RaftKvStore.start(KvStoreConfig.of("127.0.0.1", port, List.of(), dir,
                "naming-service-test-secret".getBytes(StandardCharsets.UTF_8), NamingKeyspaces.ALL));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!store.readiness().ready()) {
            if (System.nanoTime() > deadline) {
                store.close();
                throw new AssertionError("store not ready: " + store.readiness().reason());
            }
            Thread.sleep(20);
        }
        return store;
    }


}
