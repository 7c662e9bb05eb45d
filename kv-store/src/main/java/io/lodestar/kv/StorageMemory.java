package io.lodestar.kv;

/**
 * What the store's RocksDB holds in native memory, outside the Java heap: operators see it in the
 * metrics, since a JVM's own accounting (heap, NMT) never shows it.
 *
 * @param memtableBytes      writes not yet flushed to a table file, all keyspaces together
 * @param blockCacheBytes    table blocks cached for reads (memtables are charged to the same budget)
 * @param tableReaderBytes   index and filter blocks of open table files held outside the cache
 */
public record StorageMemory(long memtableBytes, long blockCacheBytes, long tableReaderBytes) {}
