package io.lodestar.kv;

import io.lodestar.kv.count.CountRules;
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
        CountRules counting) {

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
                CountRules.NONE);
    }

    public String self() {
        return host + ":" + raftPort;
    }

    public KvStoreConfig withHttpAddress(String address) {
        return new KvStoreConfig(
                host,
                raftPort,
                peers,
                dataDir,
                clusterSecret,
                keyspaces,
                address,
                snapshotIntervalSecs,
                snapshotEntries,
                snapshotBytes,
                diskReserveBytes,
                electionTimeoutMs,
                requestTimeoutMs,
                maxValueBytes,
                blockCacheBytes,
                raftPortSettings,
                counting);
    }

    public KvStoreConfig withSnapshotIntervalSecs(int secs) {
        return new KvStoreConfig(
                host,
                raftPort,
                peers,
                dataDir,
                clusterSecret,
                keyspaces,
                httpAddress,
                secs,
                snapshotEntries,
                snapshotBytes,
                diskReserveBytes,
                electionTimeoutMs,
                requestTimeoutMs,
                maxValueBytes,
                blockCacheBytes,
                raftPortSettings,
                counting);
    }

    /** Snapshot also after {@code entries} entries or {@code bytes} bytes of log since the last snapshot. */
    public KvStoreConfig withSnapshotThresholds(long entries, long bytes) {
        return new KvStoreConfig(
                host,
                raftPort,
                peers,
                dataDir,
                clusterSecret,
                keyspaces,
                httpAddress,
                snapshotIntervalSecs,
                entries,
                bytes,
                diskReserveBytes,
                electionTimeoutMs,
                requestTimeoutMs,
                maxValueBytes,
                blockCacheBytes,
                raftPortSettings,
                counting);
    }

    public KvStoreConfig withDiskReserveBytes(long reserve) {
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
                reserve,
                electionTimeoutMs,
                requestTimeoutMs,
                maxValueBytes,
                blockCacheBytes,
                raftPortSettings,
                counting);
    }

    public KvStoreConfig withTimeouts(int electionMs, long requestMs) {
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
                electionMs,
                requestMs,
                maxValueBytes,
                blockCacheBytes,
                raftPortSettings,
                counting);
    }

    public KvStoreConfig withMaxValueBytes(int max) {
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
                max,
                blockCacheBytes,
                raftPortSettings,
                counting);
    }

    public KvStoreConfig withRaftPortSettings(RaftPortSettings settings) {
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
                settings,
                counting);
    }

    /** Counts the keys of the keyspaces {@code rules} name. */
    public KvStoreConfig withCounting(CountRules rules) {
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
                rules);
    }
}
