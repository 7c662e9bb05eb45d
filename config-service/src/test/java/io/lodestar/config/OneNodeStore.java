package io.lodestar.config;

import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.FreePorts;
import io.lodestar.kv.raft.RaftKvStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real one-node Raft store on RocksDB for the domain tests: no mocks, no twins. */
public final class OneNodeStore {
    private OneNodeStore() {}

    /** Starts a store in {@code dir} on a free loopback port and waits (30 s at most) until it takes writes. */
    public static RaftKvStore start(Path dir) throws Exception {
        RaftKvStore store = RaftKvStore.start(KvStoreConfig.of("127.0.0.1", FreePorts.next(), List.of(), dir,
                "config-service-test-secret".getBytes(StandardCharsets.UTF_8), ConfigKeyspaces.ALL));
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
