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

    /**
     * A page of the config's history, newest first. The history is walked by key and only the page's
     * entries are read, so a long history of large configs is never all in memory.
     */
    public Page list(ConfigKey key, int pageNo, int pageSize) {
        byte[] prefix = prefix(key);
        int total = (int) Math.min(Integer.MAX_VALUE, store.count(ConfigKeyspaces.HISTORY, prefix, Integer.MAX_VALUE));
        int from = (int) Math.min(total, (long) (pageNo - 1) * pageSize);
        int to = (int) Math.min(total, (long) from + pageSize);
        // newest first: the page is entries [total - to, total - from) in the store's oldest-first order
        long first = total - to;
        long end = total - from;
        List<Long> ids = new ArrayList<>();
        long[] index = {0};
        walk(key, (id, storeKey) -> {
            if (index[0] >= first && index[0] < end) {
                ids.add(id);
            }
            return ++index[0] < end;
        });
        List<HistoryEntry> page = new ArrayList<>();
        for (long id : ids) {
            HistoryEntry e = get(key, id);
            if (e != null) { // removed by retention since the walk: left out of the page
                page.add(e);
            }
        }
        Collections.reverse(page);
        return new Page(total, pageNo, (total + pageSize - 1) / pageSize, page);
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
        long[] before = {-1};
        walk(key, (entryId, storeKey) -> {
            if (entryId >= id) {
                return false;
            }
            before[0] = entryId;
            return true;
        });
        return before[0] < 0 ? null : get(key, before[0]);
    }

    /** The entry just after {@code id} in the config's history, or null. */
    public HistoryEntry next(ConfigKey key, long id) {
        long[] after = {-1};
        walk(key, (entryId, storeKey) -> {
            if (entryId <= id) {
                return true;
            }
            after[0] = entryId;
            return false;
        });
        return after[0] < 0 ? null : get(key, after[0]);
    }

    /** What {@link #walk} tells of each entry: its id and store key; false stops the walk. */
    private interface Visitor {
        boolean visit(long id, byte[] storeKey);
    }

    /** The config's entries oldest first, by key only. */
    private void walk(ConfigKey key, Visitor visitor) {
        byte[] prefix = prefix(key);
        store.forEachKey(
                ConfigKeyspaces.HISTORY,
                prefix,
                k -> k.length != prefix.length + 8
                        || visitor.visit(ByteBuffer.wrap(k, prefix.length, 8).getLong(), k));
    }

    static byte[] prefix(ConfigKey key) {
        byte[] k = key.storeKey();
        return ByteBuffer.allocate(k.length + 1).put(k).put((byte) 0).array();
    }

    public record Page(int totalCount, int pageNumber, int pagesAvailable, List<HistoryEntry> items) {}
}
