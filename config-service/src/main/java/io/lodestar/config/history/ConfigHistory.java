package io.lodestar.config.history;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.command.Op;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The history of each config, in keyspace {@value ConfigKeyspaces#HISTORY}: the config's store key,
 * a NUL, then the revision of the change. Entries are appended in the same command as the change
 * they record, so a change and its history entry are written together or not at all.
 */
public final class ConfigHistory {
    private final KvStore store;

    public ConfigHistory(KvStore store) {
        this.store = store;
    }

    /** The op that appends {@code entry} (its id is ignored: the change's revision becomes it). */
    public static Op append(HistoryEntry entry) {
        return Op.putAtRevision(ConfigKeyspaces.HISTORY, prefix(entry.key()), HistoryCodec.encode(entry));
    }

    /** A page of the config's history, newest first. */
    public Page list(ConfigKey key, int pageNo, int pageSize) {
        List<HistoryEntry> all = all(key);
        Collections.reverse(all);
        int from = Math.min(all.size(), (pageNo - 1) * pageSize);
        int to = Math.min(all.size(), from + pageSize);
        return new Page(all.size(), pageNo, (all.size() + pageSize - 1) / pageSize, all.subList(from, to));
    }

    /** The entry with this id, or null. */
    public HistoryEntry get(ConfigKey key, long id) {
        byte[] k = ByteBuffer.allocate(prefix(key).length + 8)
                .put(prefix(key))
                .putLong(id)
                .array();
        KvEntry e = store.get(ConfigKeyspaces.HISTORY, k);
        return e == null ? null : HistoryCodec.decode(id, key, e.value());
    }

    /** The entry just before {@code id} in the config's history, or null. */
    public HistoryEntry previous(ConfigKey key, long id) {
        HistoryEntry before = null;
        for (HistoryEntry e : all(key)) {
            if (e.id() >= id) {
                break;
            }
            before = e;
        }
        return before;
    }

    /** Oldest first. Bounded by the retention rules; a page of a long history still reads it all. */
    private List<HistoryEntry> all(ConfigKey key) {
        byte[] prefix = prefix(key);
        List<HistoryEntry> out = new ArrayList<>();
        for (KvEntry e : store.scan(ConfigKeyspaces.HISTORY, prefix, Integer.MAX_VALUE)) {
            if (e.key().length != prefix.length + 8) {
                continue;
            }
            long id = ByteBuffer.wrap(e.key(), prefix.length, 8).getLong();
            out.add(HistoryCodec.decode(id, key, e.value()));
        }
        return out;
    }

    static byte[] prefix(ConfigKey key) {
        byte[] k = key.storeKey();
        return ByteBuffer.allocate(k.length + 1).put(k).put((byte) 0).array();
    }

    public record Page(int totalCount, int pageNumber, int pagesAvailable, List<HistoryEntry> items) {}
}
