package io.lodestar.kv.rocks;

import io.lodestar.kv.StoreCheckpoint;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * What a checkpoint of the store holds, read from the checkpoint itself: its applied index and
 * revision (written in the same batch as the data they describe, so they match it whatever the
 * live store did meanwhile) and the number of keys of each keyspace. Opens it read-only: a
 * checkpoint is not changed by being described.
 */
public final class CheckpointSummary {
    static {
        RocksDB.loadLibrary();
    }

    private CheckpointSummary() {}

    public static StoreCheckpoint of(Path checkpoint) {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (Options listing = new Options();
                DBOptions options = new DBOptions()) {
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (byte[] name : RocksDB.listColumnFamilies(listing, checkpoint.toString())) {
                descriptors.add(new ColumnFamilyDescriptor(name));
            }
            try (RocksDB db = RocksDB.openReadOnly(options, checkpoint.toString(), descriptors, handles)) {
                long applied = 0;
                long revision = 0;
                Map<String, Long> keys = new TreeMap<>();
                for (int i = 0; i < descriptors.size(); i++) {
                    String name = new String(descriptors.get(i).getName());
                    ColumnFamilyHandle h = handles.get(i);
                    if (name.equals(RocksEngine.META)) {
                        applied = asLong(db.get(h, RocksEngine.APPLIED_INDEX));
                        revision = asLong(db.get(h, RocksEngine.REVISION));
                    } else if (!name.equals("default") && !name.equals(Counters.FAMILY)) {
                        keys.put(name, count(db, h));
                    }
                }
                return new StoreCheckpoint(checkpoint, applied, revision, keys);
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new StorageException("cannot read the checkpoint in " + checkpoint + ": " + e.getMessage(), e);
        }
    }

    private static long count(RocksDB db, ColumnFamilyHandle h) {
        long n = 0;
        try (RocksIterator it = db.newIterator(h)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                n++;
            }
        }
        return n;
    }

    private static long asLong(byte[] value) {
        return value == null ? 0 : ByteBuffer.wrap(value).getLong();
    }
}
