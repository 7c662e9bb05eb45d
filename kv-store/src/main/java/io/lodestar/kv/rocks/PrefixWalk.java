package io.lodestar.kv.rocks;

import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/** Walks one column family's keys under a prefix in key order: every range read of the engine. */
final class PrefixWalk {
    /** Is told each key in turn (the iterator stands on it) and answers whether to go on. */
    @FunctionalInterface
    interface Visitor {
        boolean visit(RocksIterator at);
    }

    private PrefixWalk() {}

    /**
     * Visits the keys that start with {@code prefix} and are at or after {@code startKey} (a start
     * before the prefix starts at the prefix); {@code fillCache}: whether the blocks read stay cached.
     */
    static void walk(
            RocksDB db, ColumnFamilyHandle family, byte[] prefix, byte[] startKey, boolean fillCache, Visitor visitor) {
        byte[] from = Arrays.compareUnsigned(startKey, prefix) < 0 ? prefix : startKey;
        byte[] end = Prefixes.successor(prefix);
        // The upper bound stops the iterator at the prefix's end: without it a seek past the last
        // live key of the prefix walks every deleted key after it (thousands after a deregistration
        // burst) before it finds a live one to compare.
        try (Slice bound = end == null ? null : new Slice(end);
                ReadOptions options = new ReadOptions().setFillCache(fillCache);
                RocksIterator it =
                        db.newIterator(family, bound == null ? options : options.setIterateUpperBound(bound))) {
            for (it.seek(from); it.isValid(); it.next()) {
                if (!Prefixes.startsWith(it.key(), prefix) || !visitor.visit(it)) {
                    break;
                }
            }
        }
    }
}
