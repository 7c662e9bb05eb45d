package io.lodestar.kv;

/**
 * The Raft log and snapshots of one node, as {@code /metrics} and {@code /lodestar/v1/cluster} show them.
 *
 * @param logBytes               bytes of the Raft log on disk (its RocksDB files)
 * @param entriesSinceSnapshot   entries applied since the last snapshot (its index to the applied index)
 * @param bytesSinceSnapshot     bytes of the entries applied since the last snapshot, as this process saw them
 * @param lastSnapshotIndex      the log index the last snapshot holds; 0 for none
 * @param lastSnapshotAtMillis   when the last snapshot completed, epoch milliseconds; 0 for none since start
 * @param lastSnapshotMillis     how long the last snapshot took, from the checkpoint to the files registered
 * @param snapshots              snapshots completed since start
 * @param diskFreeBytes          usable bytes left on the data directory's filesystem
 */
public record LogStats(
        long logBytes,
        long entriesSinceSnapshot,
        long bytesSinceSnapshot,
        long lastSnapshotIndex,
        long lastSnapshotAtMillis,
        long lastSnapshotMillis,
        long snapshots,
        long diskFreeBytes) {}
