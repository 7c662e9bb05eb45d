package io.lodestar.kv.rocks;

import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.WriteBufferManager;

/**
 * How the engine's RocksDB is tuned: one block cache that memtables are charged to, and the same
 * options for every keyspace. Every native object made is added to the caller's list, which closes
 * them after the database in reverse order.
 */
record RocksTuning(LRUCache blockCache, DBOptions db, ColumnFamilyOptions keyspace) {

    static RocksTuning open(long blockCacheBytes, List<AutoCloseable> opened) {
        LRUCache blockCache = track(opened, new LRUCache(blockCacheBytes));
        // Memtables of every column family together stay within a quarter of the block cache's
        // budget and are charged to it: without a cap each keyspace could hold two full memtables.
        WriteBufferManager memtables = track(opened, new WriteBufferManager(blockCacheBytes / 4, blockCache));
        DBOptions dbOptions = track(
                opened,
                new DBOptions()
                        .setWriteBufferManager(memtables)
                        .setCreateIfMissing(true)
                        .setCreateMissingColumnFamilies(true)
                        .setParanoidChecks(true)
                        .setKeepLogFileNum(4)
                        // one flush and one compaction at a time: a flush never waits behind a
                        // compaction, and more jobs would only take cores from the request threads
                        .setMaxBackgroundJobs(2)
                        // table files are written back a little at a time as they are built, not all
                        // at their final sync, so a Raft fsync never waits behind a whole table file
                        .setBytesPerSync(1L << 20));
        // Bloom filters (10 bits a key, about 1 % false positives): a lookup of a key that does
        // not exist, as every new config's publish makes twice, then reads no data block.
        // Without them each such miss would read and cache a block per table file, filling the
        // cache with blocks nobody asked for.
        ColumnFamilyOptions cfOptions = track(
                opened,
                new ColumnFamilyOptions()
                        .setCompressionType(CompressionType.LZ4_COMPRESSION)
                        .setWriteBufferSize(16L << 20)
                        // sized by the last level, so most of the data sits there and the data directory
                        // stays close to the size of the live data under overwrites and deletes
                        .setLevelCompactionDynamicLevelBytes(true)
                        // level 1 as large as level 0 at its compaction trigger (4 x 16 MiB memtables),
                        // so a level-0 compaction merges files of like size rather than rewriting a
                        // level 1 four times larger
                        .setMaxBytesForLevelBase(64L << 20)
                        .setTableFormatConfig(new BlockBasedTableConfig()
                                .setBlockCache(blockCache)
                                .setFilterPolicy(track(opened, new BloomFilter(10, false)))));
        return new RocksTuning(blockCache, dbOptions, cfOptions);
    }

    /** {@code resource}, added to {@code opened} to be closed with the engine. */
    static <T extends AutoCloseable> T track(List<AutoCloseable> opened, T resource) {
        opened.add(resource);
        return resource;
    }
}
