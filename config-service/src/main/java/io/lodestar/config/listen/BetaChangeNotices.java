package io.lodestar.config.listen;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gray-release (beta) changes on this node's change feed, told to whoever listens to the key: a
 * release started, changed, stopped or was promoted. Which clients it concerns depends on their
 * addresses, so every listener of the key hears it; the others find their md5 unchanged when they
 * ask. The change log does not carry these, so push sessions that need them listen here.
 *
 * <p>Threads: {@link Listener#betaChanged} runs on the change feed's delivery thread for this
 * subscriber and must not block. A feed resync is not replayed: missed changes are found by the
 * clients' periodic full re-listen.
 */
public final class BetaChangeNotices implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BetaChangeNotices.class);
    static final int FEED_CAPACITY = 4_096;

    /** Hears that a key's gray release changed. */
    public interface Listener {
        void betaChanged(ConfigKey key);
    }

    private final KeyListeners<Listener> listeners = new KeyListeners<>();
    private final AutoCloseable subscription;

    public BetaChangeNotices(KvStore store) {
        this.subscription = store.subscribe(new FeedListener(), FEED_CAPACITY);
    }

    public void listen(ConfigKey key, Listener listener) {
        listeners.add(key, listener);
    }

    public void unlisten(ConfigKey key, Listener listener) {
        listeners.remove(key, listener);
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot unsubscribe from the change feed", e);
        }
    }

    private final class FeedListener implements ChangeListener {
        @Override
        public boolean hears(String keyspace) {
            return ConfigKeyspaces.BETA.equals(keyspace);
        }

        @Override
        public void onChange(ChangeEvent event) {
            if (listeners.isEmpty()) {
                return;
            }
            ConfigKey key;
            try {
                key = ConfigKey.fromStoreKey(event.key());
            } catch (RuntimeException e) {
                LOG.warn("ignoring a change to an undecodable beta key at revision {}", event.revision(), e);
                return;
            }
            listeners.of(key).forEach(l -> l.betaChanged(key));
        }

        @Override
        public void onResync(long fromRevision) {
            // missed gray-release changes are found by the clients' full re-listen
        }

        @Override
        public String toString() {
            return "BetaChangeNotices";
        }
    }
}
