package io.lodestar.kv;

import io.lodestar.kv.count.CountRules;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

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
 * @param snapshotEntries also snapshot once this many entries were applied since the last one
 * @param snapshotBytes   also snapshot once the entries applied since the last one hold this many bytes
 * @param diskReserveBytes refuse writes while the data directory's filesystem has less than this left
 * @param electionTimeoutMs Raft election timeout
 * @param requestTimeoutMs how long a write may wait for a leader and a commit
 * @param maxValueBytes   largest value accepted
 * @param blockCacheBytes RocksDB block cache bound
 * @param raftPortSettings how the Raft port admits connections that have not proved the cluster secret
 * @param counting        which keyspaces' keys the store counts, and by which scope; the same on every
 *                        member (the domains declare them in code)
 * @param forceNewCluster start as a one-node group of this node alone, keeping everything it applied:
 *                        the recovery of a group that lost its majority for good (etcd's
 *                        {@code --force-new-cluster}); for one start only, never a standing setting
 */
public record KvStoreConfig(
        String host,
        int raftPort,
        List<String> peers,
        Path dataDir,
        byte[] clusterSecret,
        Set<String> keyspaces,
        String httpAddress,
        int snapshotIntervalSecs,
        long snapshotEntries,
        long snapshotBytes,
        long diskReserveBytes,
        int electionTimeoutMs,
        long requestTimeoutMs,
        int maxValueBytes,
        long blockCacheBytes,
        RaftPortSettings raftPortSettings,
        CountRules counting,
        boolean forceNewCluster) {

    /**
     * The largest command's values together: above what the domains write at their own limits (a
     * 10 MiB config is written with its history entry, twice the content in one command), so a user
     * meets the domain's limit, which names the field, and never this one.
     */
    public static final int DEFAULT_MAX_VALUE_BYTES = 32 << 20;
    /** A few seconds of writes at the rates a node accepts: what a restart replays at most. */
    public static final long DEFAULT_SNAPSHOT_ENTRIES = 20_000;

    public static final long DEFAULT_SNAPSHOT_BYTES = 64L << 20;
    /** Room for a snapshot's checkpoint and the log's next memtable flushes, with a largest value to spare. */
    public static final long DEFAULT_DISK_RESERVE_BYTES = 256L << 20;

    public KvStoreConfig {
        if (snapshotEntries < 1 || snapshotBytes < 1 || diskReserveBytes < 0) {
            throw new IllegalArgumentException(
                    "snapshot thresholds must be positive and the disk reserve not negative");
        }
    }

    /** Defaults for everything but the identity, data and keyspaces. */
    public static KvStoreConfig of(
            String host, int raftPort, List<String> peers, Path dataDir, byte[] clusterSecret, Set<String> keyspaces) {
        return new KvStoreConfig(
                host,
                raftPort,
                peers,
                dataDir,
                clusterSecret,
                keyspaces,
                null,
                3600,
                DEFAULT_SNAPSHOT_ENTRIES,
                DEFAULT_SNAPSHOT_BYTES,
                DEFAULT_DISK_RESERVE_BYTES,
                1000,
                5000,
                DEFAULT_MAX_VALUE_BYTES,
                64L << 20,
                RaftPortSettings.DEFAULT,
                CountRules.NONE,
                false);
    }

    public String self() {
        return host + ":" + raftPort;
    }

    public KvStoreConfig withHttpAddress(String address) {
        return with(b -> b.httpAddress = address);
    }

    public KvStoreConfig withSnapshotIntervalSecs(int secs) {
        return with(b -> b.snapshotIntervalSecs = secs);
    }

    /** Snapshot also after {@code entries} entries or {@code bytes} bytes of log since the last snapshot. */
    public KvStoreConfig withSnapshotThresholds(long entries, long bytes) {
        return with(b -> {
            b.snapshotEntries = entries;
            b.snapshotBytes = bytes;
        });
    }

    public KvStoreConfig withDiskReserveBytes(long reserve) {
        return with(b -> b.diskReserveBytes = reserve);
    }

    public KvStoreConfig withTimeouts(int electionMs, long requestMs) {
        return with(b -> {
            b.electionTimeoutMs = electionMs;
            b.requestTimeoutMs = requestMs;
        });
    }

    public KvStoreConfig withMaxValueBytes(int max) {
        return with(b -> b.maxValueBytes = max);
    }

    public KvStoreConfig withRaftPortSettings(RaftPortSettings settings) {
        return with(b -> b.raftPortSettings = settings);
    }

    /** Counts the keys of the keyspaces {@code rules} name. */
    public KvStoreConfig withCounting(CountRules rules) {
        return with(b -> b.counting = rules);
    }

    /** This node alone as the group, with everything it had applied (see {@code forceNewCluster}). */
    public KvStoreConfig withForceNewCluster(boolean force) {
        return with(b -> b.forceNewCluster = force);
    }

    /** This configuration with {@code change} made to a copy of its fields. */
    private KvStoreConfig with(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.build();
    }

    /** The fields of a configuration being changed: one place that lists them all, for the withers. */
    private static final class Copy {
        String host;
        int raftPort;
        List<String> peers;
        Path dataDir;
        byte[] clusterSecret;
        Set<String> keyspaces;
        String httpAddress;
        int snapshotIntervalSecs;
        long snapshotEntries;
        long snapshotBytes;
        long diskReserveBytes;
        int electionTimeoutMs;
        long requestTimeoutMs;
        int maxValueBytes;
        long blockCacheBytes;
        RaftPortSettings raftPortSettings;
        CountRules counting;
        boolean forceNewCluster;

        Copy(KvStoreConfig c) {
            host = c.host;
            raftPort = c.raftPort;
            peers = c.peers;
            dataDir = c.dataDir;
            clusterSecret = c.clusterSecret;
            keyspaces = c.keyspaces;
            httpAddress = c.httpAddress;
            snapshotIntervalSecs = c.snapshotIntervalSecs;
            snapshotEntries = c.snapshotEntries;
            snapshotBytes = c.snapshotBytes;
            diskReserveBytes = c.diskReserveBytes;
            electionTimeoutMs = c.electionTimeoutMs;
            requestTimeoutMs = c.requestTimeoutMs;
            maxValueBytes = c.maxValueBytes;
            blockCacheBytes = c.blockCacheBytes;
            raftPortSettings = c.raftPortSettings;
            counting = c.counting;
            forceNewCluster = c.forceNewCluster;
        }

        KvStoreConfig build() {
            return new KvStoreConfig(
                    host,
                    raftPort,
                    peers,
                    dataDir,
                    clusterSecret,
                    keyspaces,
                    httpAddress,
                    snapshotIntervalSecs,
                    snapshotEntries,
                    snapshotBytes,
                    diskReserveBytes,
                    electionTimeoutMs,
                    requestTimeoutMs,
                    maxValueBytes,
                    blockCacheBytes,
                    raftPortSettings,
                    counting,
                    forceNewCluster);
        }
    }
}
