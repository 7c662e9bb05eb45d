package io.lodestar.kv.raft;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Refuses writes while the data directory's filesystem has less than a reserve left, so that a
 * full disk ends in a clear refusal before the Raft log or RocksDB hits ENOSPC: JRaft halts a node
 * whose log append fails, and RocksDB a store whose WAL write fails, both until a restart. Once
 * space is freed, writes are taken again with nothing else to do.
 *
 * <p>The free space is read at most every {@value #REFRESH_NANOS} ns (a {@code statfs}), from any
 * thread; a reading that fails counts as enough space, since the check cannot tell.
 */
final class DiskGuard {
    private static final long REFRESH_NANOS = 100_000_000;

    private final Path dir;
    private final long reserveBytes;
    private volatile long freeBytes = Long.MAX_VALUE;
    private volatile long readAtNanos;

    DiskGuard(Path dir, long reserveBytes) {
        this.dir = dir;
        this.reserveBytes = reserveBytes;
        refresh();
    }

    /** Usable bytes on the filesystem as last read. */
    long freeBytes() {
        long now = System.nanoTime();
        if (now - readAtNanos >= REFRESH_NANOS) {
            refresh();
        }
        return freeBytes;
    }

    private void refresh() {
        try {
            FileStore store = Files.getFileStore(dir);
            freeBytes = store.getUsableSpace();
        } catch (IOException | RuntimeException e) {
            freeBytes = Long.MAX_VALUE;
        }
        readAtNanos = System.nanoTime();
    }

    /** Why writes are refused now, or null when there is room. */
    String refusal() {
        long free = freeBytes();
        return free >= reserveBytes
                ? null
                : "disk nearly full: " + (free >> 20) + " MiB free under " + dir + ", below the reserve of "
                        + (reserveBytes >> 20) + " MiB; writes resume once space is freed";
    }
}
