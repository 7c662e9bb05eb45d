package io.lodestar.kv;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * How to start a store node.
 *
 * @param host            this node's address: where the Raft port binds and how it names itself
 * @param raftPort        the Raft (and node-to-node) port
 * @param peers           every member as host:raftPort, self included; empty for a one-node group
 * @param dataDir         holds {@code raft/} (log, meta, snapshots) and {@code kv/} (RocksDB)
 * @param clusterSecret   authenticates the node-to-node channel; identical on every member
 * @param keyspaces       the keyspaces (column families) callers may use
 * @param httpAddress     this node's HTTP address, published to the other members; may be null
 * @param snapshotIntervalSecs how often to snapshot and compact the Raft log
 * @param electionTimeoutMs Raft election timeout
 * @param requestTimeoutMs how long a write may wait for a leader and a commit
 * @param maxValueBytes   largest value accepted
 * @param blockCacheBytes RocksDB block cache bound
 */
public record KvStoreConfig(String host, int raftPort, List<String> peers, Path dataDir, byte[] clusterSecret,
                            Set<String> keyspaces, String httpAddress, int snapshotIntervalSecs,
                            int electionTimeoutMs, long requestTimeoutMs, int maxValueBytes, long blockCacheBytes) {

    public static final int DEFAULT_MAX_VALUE_BYTES = 16 << 20;

    /** Defaults for everything but the identity, data and keyspaces. */
    public static KvStoreConfig of(String host, int raftPort, List<String> peers, Path dataDir,
                                   byte[] clusterSecret, Set<String> keyspaces) {
        return new KvStoreConfig(host, raftPort, peers, dataDir, clusterSecret, keyspaces, null,
                3600, 1000, 5000, DEFAULT_MAX_VALUE_BYTES, 64L << 20);
    }

    public String self() {
        return host + ":" + raftPort;
    }

    public KvStoreConfig withHttpAddress(String address) {
        return new KvStoreConfig(host, raftPort, peers, dataDir, clusterSecret, keyspaces, address,
                snapshotIntervalSecs, electionTimeoutMs, requestTimeoutMs, maxValueBytes, blockCacheBytes);
    }

    public KvStoreConfig withSnapshotIntervalSecs(int secs) {
        return new KvStoreConfig(host, raftPort, peers, dataDir, clusterSecret, keyspaces, httpAddress,
                secs, electionTimeoutMs, requestTimeoutMs, maxValueBytes, blockCacheBytes);
    }

    public KvStoreConfig withTimeouts(int electionMs, long requestMs) {
        return new KvStoreConfig(host, raftPort, peers, dataDir, clusterSecret, keyspaces, httpAddress,
                snapshotIntervalSecs, electionMs, requestMs, maxValueBytes, blockCacheBytes);
    }

    public KvStoreConfig withMaxValueBytes(int max) {
        return new KvStoreConfig(host, raftPort, peers, dataDir, clusterSecret, keyspaces, httpAddress,
                snapshotIntervalSecs, electionTimeoutMs, requestTimeoutMs, max, blockCacheBytes);
    }
}
