package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who listens to which config key: the index the long-poll registry, the push hub and the gRPC
 * change notices each keep of their own listeners, so a change to a key reaches exactly its
 * listeners. A key with no listener left takes no space.
 *
 * <p>Thread-safety: all methods may be called from any thread; a listener added while a change is
 * being told may or may not hear it, so callers register before they compare.
 *
 * @param <L> the listener type, compared by identity or its own equals
 */
public final class KeyListeners<L> {
    private final Map<ConfigKey, Set<L>> byKey = new ConcurrentHashMap<>();

    /** Adds {@code listener} to the key's listeners (a no-op if it is one). */
    public void add(ConfigKey key, L listener) {
        // added inside compute: an emptied set is removed inside computeIfPresent, never under us
        byKey.compute(key, (k, set) -> {
            Set<L> s = set == null ? ConcurrentHashMap.newKeySet() : set;
            s.add(listener);
            return s;
        });
    }

    /** Removes {@code listener} from the key's listeners (a no-op if it is none). */
    public void remove(ConfigKey key, L listener) {
        byKey.computeIfPresent(key, (k, set) -> {
            set.remove(listener);
            return set.isEmpty() ? null : set;
        });
    }

    /** The key's listeners, a live concurrent view (empty if none): copy it to iterate while they change. */
    public Set<L> of(ConfigKey key) {
        Set<L> set = byKey.get(key);
        return set == null ? Set.of() : set;
    }

    /** The keys with at least one listener, a copy. */
    public Set<ConfigKey> keys() {
        return Set.copyOf(byKey.keySet());
    }

    /** Every listener of any key, each once, a copy. */
    public Set<L> all() {
        Set<L> all = new HashSet<>();
        byKey.values().forEach(all::addAll);
        return all;
    }

    public boolean isEmpty() {
        return byKey.isEmpty();
    }
}
