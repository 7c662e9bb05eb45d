package io.lodestar.kv.rocks;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.StorageMemory;
import io.lodestar.kv.count.CountRules;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The raw storage engine: one RocksDB with a column family per keyspace, plus {@value #META} for
 * the last applied Raft index and the store revision, and {@link Counters} for the key counts of the
 * counted keyspaces, all written in the same WriteBatch as the data they describe.
 *
 * <p>Thread-safety: reads may run concurrently with a {@link Batch} commit; batches are committed
 * by one thread (the state machine's). {@link #close()} must not race with anything: the owner
 * guards it.
 */
public final class RocksEngine implements AutoCloseable {
    public static final String META = "_meta";
    static final byte[] APPLIED_INDEX = "applied_index".getBytes();
    static final byte[] REVISION = "revision".getBytes();

    static {
        RocksDB.loadLibrary();
    }

    private final Path dir;
    private final LRUCache blockCache;
    /** Options, cache and filter behind the open database, closed after it in reverse order. */
    private final List<AutoCloseable> resources;

    private final WriteOptions writeOptions;
    private final ReadOptions uncachedReads;
    private final List<ColumnFamilyHandle> allHandles;
    private final Map<String, ColumnFamilyHandle> keyspaces;
    private final ColumnFamilyHandle meta;
    private final Counters counters;
    private final RocksDB db;
    private volatile long appliedIndex;
    private volatile long revision;

    private RocksEngine(Path dir, Collection<String> keyspaceNames, CountRules counting, long blockCacheBytes) {
        this.dir = dir;
        List<AutoCloseable> opened = new ArrayList<>();
        List<ColumnFamilyHandle> allHandlesOrNull = null;
        RocksDB dbOrNull = null;
        try {
            Files.createDirectories(dir);
            RocksTuning tuning = RocksTuning.open(blockCacheBytes, opened);
            blockCache = tuning.blockCache();
            DBOptions dbOptions = tuning.db();
            ColumnFamilyOptions cfOptions = tuning.keyspace();
            // Not synced: the Raft log is the durable record, and an entry whose RocksDB write was
            // lost is replayed from it (replay is idempotent by the stored applied index).
            writeOptions =
                    RocksTuning.track(opened, new WriteOptions().setSync(false).setDisableWAL(false));
            uncachedReads = RocksTuning.track(opened, new ReadOptions().setFillCache(false));

            Set<String> names = new LinkedHashSet<>();
            names.add(new String(RocksDB.DEFAULT_COLUMN_FAMILY));
            names.add(META);
            names.add(Counters.FAMILY);
            names.addAll(existingColumnFamilies(dir));
            names.addAll(keyspaceNames);
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (String name : names) {
                descriptors.add(new ColumnFamilyDescriptor(name.getBytes(), cfOptions));
            }
            allHandlesOrNull = new ArrayList<>();
            dbOrNull = RocksDB.open(dbOptions, dir.toString(), descriptors, allHandlesOrNull);
            allHandles = allHandlesOrNull;
            db = dbOrNull;
            keyspaces = new HashMap<>();
            for (int i = 0; i < descriptors.size(); i++) {
                keyspaces.put(new String(descriptors.get(i).getName()), allHandles.get(i));
            }
            meta = keyspaces.get(META);
            counters = new Counters(db, keyspaces.remove(Counters.FAMILY), counting);
            counters.recountIfStale(meta, keyspaces, writeOptions);
            appliedIndex = readLong(APPLIED_INDEX);
            revision = readLong(REVISION);
            resources = opened;
        } catch (Exception e) {
            if (allHandlesOrNull != null) {
                allHandlesOrNull.forEach(ColumnFamilyHandle::close);
            }
            if (dbOrNull != null) {
                dbOrNull.close();
            }
            for (int i = opened.size() - 1; i >= 0; i--) {
                closeQuietly(opened.get(i));
            }
            throw new StorageException("cannot open the store in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens (creating if missing) the store in {@code dir} with a column family for each keyspace.
     * A corrupted store fails with a {@link StorageException} whose message names RocksDB's reason.
     */
    public static RocksEngine open(Path dir, Collection<String> keyspaces, long blockCacheBytes) {
        return open(dir, keyspaces, CountRules.NONE, blockCacheBytes);
    }

    /**
     * As {@link #open(Path, Collection, long)}, keeping key counts by {@code counting}; a store counted
     * by other rules, or by none, is counted from its keys first.
     */
    public static RocksEngine open(Path dir, Collection<String> keyspaces, CountRules counting, long blockCacheBytes) {
        return new RocksEngine(dir, keyspaces, counting, blockCacheBytes);
    }

    private static List<String> existingColumnFamilies(Path dir) throws RocksDBException {
        if (!Files.exists(dir.resolve("CURRENT"))) {
            return List.of();
        }
        try (Options options = new Options()) {
            List<String> names = new ArrayList<>();
            for (byte[] name : RocksDB.listColumnFamilies(options, dir.toString())) {
                names.add(new String(name));
            }
            return names;
        }
    }

    public Path dir() {
        return dir;
    }

    /** The index of the last Raft entry whose effects are in this store; 0 when empty. */
    public long appliedIndex() {
        return appliedIndex;
    }

    /** The store's revision: the number of applied commands that changed something. */
    public long revision() {
        return revision;
    }

    /** The native memory this store's RocksDB holds; zeros for what RocksDB cannot report. */
    public StorageMemory storageMemory() {
        return new StorageMemory(
                property("rocksdb.cur-size-all-mem-tables"),
                blockCache.getUsage(),
                property("rocksdb.estimate-table-readers-mem"));
    }

    /** A property summed over every column family. */
    private long property(String name) {
        try {
            return db.getAggregatedLongProperty(name);
        } catch (RocksDBException e) {
            return 0;
        }
    }

    public boolean hasKeyspace(String keyspace) {
        return keyspaces.containsKey(keyspace) && !META.equals(keyspace);
    }

    public KvEntry get(String keyspace, byte[] key) {
        return get(keyspace, key, true);
    }

    /**
     * As {@link #get(String, byte[])}, leaving the block cache as it was: for a key about to be
     * deleted, whose block nobody needs cached (a retention pass deletes thousands).
     */
    public KvEntry getUncached(String keyspace, byte[] key) {
        return get(keyspace, key, false);
    }

    private KvEntry get(String keyspace, byte[] key, boolean fillCache) {
        try {
            byte[] stored = fillCache ? db.get(handle(keyspace), key) : db.get(handle(keyspace), uncachedReads, key);
            return stored == null ? null : StoredValue.decode(key, stored);
        } catch (RocksDBException e) {
            throw new StorageException("read failed in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Entries whose key starts with {@code prefix}, in key order, at most {@code limit}. */
    public List<KvEntry> scan(String keyspace, byte[] prefix, int limit) {
        return scanFrom(keyspace, prefix, prefix, limit);
    }

    /**
     * Entries whose key starts with {@code prefix} and is at or after {@code startKey} (unsigned
     * byte order), in key order, at most {@code limit}. A {@code startKey} before the prefix
     * starts at the prefix.
     */
    public List<KvEntry> scanFrom(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        return scanFrom(keyspace, prefix, startKey, limit, true);
    }

    /** As {@link #scanFrom}, leaving the block cache as it was: for background passes over a keyspace. */
    public List<KvEntry> sweepFrom(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        return scanFrom(keyspace, prefix, startKey, limit, false);
    }

    private List<KvEntry> scanFrom(String keyspace, byte[] prefix, byte[] startKey, int limit, boolean fillCache) {
        List<KvEntry> out = new ArrayList<>();
        if (limit > 0) {
            PrefixWalk.walk(db, handle(keyspace), prefix, startKey, fillCache, at -> {
                out.add(StoredValue.decode(at.key(), at.value()));
                return out.size() < limit;
            });
        }
        return out;
    }

    /** The rules the key counts are kept by. */
    public CountRules countRules() {
        return counters.rules();
    }

    /**
     * The number of keys of a counted keyspace under {@code prefix}, which selects whole scopes
     * ({@link CountRules#selectsWholeScopes}), from the counters: no key is walked.
     */
    public long countedKeys(String keyspace, byte[] prefix) {
        handle(keyspace);
        return counters.under(keyspace, prefix);
    }

    /** The counter of one scope of a counted keyspace. */
    long counter(String keyspace, byte[] scope) {
        return counters.get(keyspace, scope);
    }

    /**
     * How many keys start with {@code prefix}, at most {@code limit}. Only the keys are copied out,
     * never a value, so the heap stays flat however large the values are, and the block cache is
     * left as it was.
     */
    public long count(String keyspace, byte[] prefix, long limit) {
        long[] n = {0};
        walkKeys(keyspace, prefix, prefix, key -> ++n[0] < limit);
        return n[0];
    }

    /**
     * The keys starting with {@code prefix} at or after {@code startKey}, in key order, at most
     * {@code limit}; no value is copied out, and the block cache is left as it was.
     */
    public List<byte[]> keys(String keyspace, byte[] prefix, byte[] startKey, int limit) {
        List<byte[]> out = new ArrayList<>();
        if (limit > 0) {
            walkKeys(keyspace, prefix, startKey, key -> {
                out.add(key);
                return out.size() < limit;
            });
        }
        return out;
    }

    private void walkKeys(String keyspace, byte[] prefix, byte[] startKey, java.util.function.Predicate<byte[]> more) {
        PrefixWalk.walk(db, handle(keyspace), prefix, startKey, false, at -> more.test(at.key()));
    }

    /** A new batch of mutations; nothing is visible until {@link Batch#commit}. */
    public Batch newBatch() {
        return new Batch();
    }

    /** Writes a consistent point-in-time copy (hard links where possible) into a new directory. */
    public void checkpoint(Path target) {
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            checkpoint.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
            throw new StorageException("checkpoint of " + dir + " into " + target + " failed: " + e.getMessage(), e);
        }
    }

    private ColumnFamilyHandle handle(String keyspace) {
        ColumnFamilyHandle handle = META.equals(keyspace) ? null : keyspaces.get(keyspace);
        if (handle == null) {
            throw new InvalidRequestException("keyspace", "unknown keyspace '" + keyspace + "'");
        }
        return handle;
    }

    private long readLong(byte[] key) throws RocksDBException {
        byte[] value = db.get(meta, key);
        return value == null ? 0 : ByteBuffer.wrap(value).getLong();
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    @Override
    public void close() {
        for (ColumnFamilyHandle handle : allHandles) {
            handle.close();
        }
        try {
            db.closeE();
        } catch (RocksDBException e) {
            throw new StorageException("close of " + dir + " failed: " + e.getMessage(), e);
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                closeQuietly(resources.get(i));
            }
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception ignored) {
            // already failing; the original error is the one to report
        }
    }

    /** Mutations committed atomically together with the applied index and revision they reach. */
    public final class Batch implements AutoCloseable {
        private final WriteBatch batch = new WriteBatch();

        private Batch() {}

        public void put(String keyspace, KvEntry entry) {
            try {
                batch.put(
                        handle(keyspace),
                        entry.key(),
                        StoredValue.encode(entry.createRevision(), entry.modRevision(), entry.value()));
            } catch (RocksDBException e) {
                throw new StorageException("batch put failed: " + e.getMessage(), e);
            }
        }

        public void delete(String keyspace, byte[] key) {
            try {
                batch.delete(handle(keyspace), key);
            } catch (RocksDBException e) {
                throw new StorageException("batch delete failed: " + e.getMessage(), e);
            }
        }

        /** Sets the counter of {@code scope}; a scope of no keys keeps no counter. */
        void putCounter(String keyspace, byte[] scope, long count) {
            counters.stage(batch, keyspace, scope, count);
        }

        /** Remembers the batch's contents so far; {@link #rollbackToMark} returns to them. */
        public void mark() {
            batch.setSavePoint();
        }

        /** Drops every mutation added since the last {@link #mark} (and that mark). */
        public void rollbackToMark() {
            try {
                batch.rollbackToSavePoint();
            } catch (RocksDBException e) {
                throw new StorageException("batch rollback failed: " + e.getMessage(), e);
            }
        }

        public void commit(long newAppliedIndex, long newRevision) {
            try {
                batch.put(meta, APPLIED_INDEX, longBytes(newAppliedIndex));
                batch.put(meta, REVISION, longBytes(newRevision));
                db.write(writeOptions, batch);
            } catch (RocksDBException e) {
                throw new StorageException("write to " + dir + " failed: " + e.getMessage(), e);
            }
            appliedIndex = newAppliedIndex;
            revision = newRevision;
        }

        @Override
        public void close() {
            batch.close();
        }
    }
}
