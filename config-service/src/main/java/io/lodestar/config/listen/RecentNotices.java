package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The last notice of each long-polling client (by address) and key: a held poll is answered and
 * gone, and the client polls again at once, so the notice outlives the poll that carried it by a
 * little. Bounded twice: at most {@code capacity} entries (the least recently told dropped first),
 * and an entry older than {@code ttlMillis} is forgotten, so a client that stopped polling leaves
 * nothing behind for long. Thread-safe.
 */
final class RecentNotices {
    private record Key(String clientIp, ConfigKey key) {}

    private final int capacity;
    private final long ttlMillis;
    private final LongSupplier clock;
    private final LinkedHashMap<Key, Notice> notices = new LinkedHashMap<>(16, 0.75f, false);

    RecentNotices(int capacity, long ttlMillis, LongSupplier clock) {
        this.capacity = capacity;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    synchronized void told(String clientIp, ConfigKey key, Notice notice) {
        Key k = new Key(clientIp, key);
        notices.remove(k); // re-inserted last: the map is ordered by the time told
        notices.put(k, notice);
        long oldest = clock.getAsLong() - ttlMillis;
        var it = notices.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Key, Notice> e = it.next();
            if (notices.size() <= capacity && e.getValue().atMillis() >= oldest) {
                break;
            }
            it.remove();
        }
    }

    /** The client's last notice of {@code key} within the time kept, or null. */
    synchronized Notice last(String clientIp, ConfigKey key) {
        Notice n = notices.get(new Key(clientIp, key));
        return n == null || n.atMillis() < clock.getAsLong() - ttlMillis ? null : n;
    }

    synchronized int size() {
        return notices.size();
    }
}
