package io.lodestar.kv.rocks;

import io.lodestar.kv.count.CountRules;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The key counts of the counted keyspaces ({@link CountRules}), one counter per scope, in the column
 * family {@value #FAMILY}: keyed {@code keyspace NUL scope}, the value a big-endian long; a scope
 * with no keys has no counter. They are written in the same write batch as the keys they count and
 * travel in snapshots with them. The rules they were counted by are stored in the meta column
 * family; a store opened with other rules (or written before counts existed) is counted again from
 * its keys by {@link #recountIfStale}, before anything reads or applies.
 *
 * <p>Thread-safety: reads run from any thread; the recount runs while the engine opens, before any
 * other use.
 */
final class Counters {
    static final String FAMILY = "_counts";
    private static final byte[] RULES = "count_rules".getBytes(StandardCharsets.UTF_8);
    private static final byte[] EVERY_KEY = new byte[0];

    private final RocksDB db;
    private final ColumnFamilyHandle family;
    private final CountRules rules;

    Counters(RocksDB db, ColumnFamilyHandle family, CountRules rules) {
        this.db = db;
        this.family = family;
        this.rules = rules;
    }

    CountRules rules() {
        return rules;
    }

    /** The counter's key of {@code scope} in {@code keyspace}. */
    static byte[] key(String keyspace, byte[] scope) {
        byte[] name = keyspace.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(name.length + 1 + scope.length)
                .put(name)
                .put((byte) 0)
                .put(scope)
                .array();
    }

    static byte[] encode(long count) {
        return ByteBuffer.allocate(8).putLong(count).array();
    }

    /** The keys of {@code keyspace} under {@code scope}. */
    long get(String keyspace, byte[] scope) {
        try {
            byte[] value = db.get(family, key(keyspace, scope));
            return value == null ? 0 : ByteBuffer.wrap(value).getLong();
        } catch (RocksDBException e) {
            throw new StorageException("counter read failed: " + e.getMessage(), e);
        }
    }

    /**
     * The keys of {@code keyspace} under {@code prefix}, which selects whole scopes: one counter
     * when it is one scope, else the sum of the scopes under it.
     */
    long under(String keyspace, byte[] prefix) {
        byte[] scope = rules.scope(keyspace, prefix);
        if (scope != null && scope.length == prefix.length) {
            return get(keyspace, prefix);
        }
        long[] sum = {0};
        byte[] from = key(keyspace, prefix);
        PrefixWalk.walk(db, family, from, from, true, at -> {
            sum[0] += ByteBuffer.wrap(at.value()).getLong();
            return true;
        });
        return sum[0];
    }

    /** Stages the counter of {@code scope} in {@code batch}; a scope of no keys keeps no counter. */
    void stage(WriteBatch batch, String keyspace, byte[] scope, long count) {
        byte[] key = key(keyspace, scope);
        try {
            if (count == 0) {
                batch.delete(family, key);
            } else {
                batch.put(family, key, encode(count));
            }
        } catch (RocksDBException e) {
            throw new StorageException("counter write failed: " + e.getMessage(), e);
        }
    }

    /**
     * Counts every counted keyspace from its keys and replaces all counters, in one write with the
     * rules, unless the store was counted by these rules already. Deterministic: a function of the
     * keys, so replicas at the same applied index count alike.
     *
     * @return whether it counted
     */
    boolean recountIfStale(
            ColumnFamilyHandle meta, Map<String, ColumnFamilyHandle> keyspaces, WriteOptions writeOptions)
            throws RocksDBException {
        byte[] stored = db.get(meta, RULES);
        String marker = rules.marker();
        if (stored == null ? marker.isEmpty() : marker.equals(new String(stored, StandardCharsets.UTF_8))) {
            return false;
        }
        try (WriteBatch batch = new WriteBatch()) {
            clear(batch);
            for (String keyspace : rules.keyspaces()) {
                ColumnFamilyHandle handle = keyspaces.get(keyspace);
                if (handle == null) {
                    continue; // not opened by this store: nothing to count
                }
                for (Map.Entry<ByteBuffer, Long> e : tally(keyspace, handle).entrySet()) {
                    byte[] scope = new byte[e.getKey().remaining()];
                    e.getKey().duplicate().get(scope);
                    batch.put(family, key(keyspace, scope), encode(e.getValue()));
                }
            }
            batch.put(meta, RULES, marker.getBytes(StandardCharsets.UTF_8));
            db.write(writeOptions, batch);
        }
        return true;
    }

    private void clear(WriteBatch batch) {
        PrefixWalk.walk(db, family, EVERY_KEY, EVERY_KEY, false, at -> {
            remove(batch, at.key());
            return true;
        });
    }

    private void remove(WriteBatch batch, byte[] counterKey) {
        try {
            batch.delete(family, counterKey);
        } catch (RocksDBException e) {
            throw new StorageException("counter write failed: " + e.getMessage(), e);
        }
    }

    private Map<ByteBuffer, Long> tally(String keyspace, ColumnFamilyHandle handle) {
        Map<ByteBuffer, Long> counts = new HashMap<>();
        PrefixWalk.walk(db, handle, EVERY_KEY, EVERY_KEY, false, at -> {
            byte[] scope = rules.scope(keyspace, at.key());
            if (scope != null) {
                counts.merge(ByteBuffer.wrap(scope), 1L, Long::sum);
            }
            return true;
        });
        return counts;
    }
}
