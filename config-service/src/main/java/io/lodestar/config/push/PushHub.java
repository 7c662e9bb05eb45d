package io.lodestar.config.push;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.listen.KeyListeners;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Config change notices for push-channel sessions on this node, fed by this node's change feed
 * (entries of the {@link ConfigChangeLog}), so a client connected to any node hears of every
 * committed change.
 *
 * <p>Per session and key, a notice is sent for every logged change with a revision above the one
 * the session had, in revision order, at most once: a subscribe with a {@code sinceRevision} first
 * replays the change log after it, while live changes to those keys are held back; the held-back
 * ones are then sent unless already replayed. After a feed resync the log is read again from the
 * first revision that may have been missed. A session whose queue of unsent messages exceeds
 * {@code maxQueued} is closed with {@link PushSession.CloseReason#TOO_SLOW}: its client reconnects
 * with the last revision it saw and loses nothing.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public final class PushHub implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PushHub.class);
    /** Unsent messages (and held-back live changes) one session may have before it is dropped. */
    public static final int DEFAULT_MAX_QUEUED = 10_000;

    static final int FEED_CAPACITY = 65_536;

    private final KvStore store;
    private final ConfigChangeLog log;
    private final ChangeReplay changes;
    private final int maxQueued;
    private final Map<PushSession, SessionOutbox> sessions = new ConcurrentHashMap<>();
    private final KeyListeners<SessionOutbox> byKey = new KeyListeners<>();
    private final SessionOutbox.Owner owner = new SessionOutbox.Owner() {
        @Override
        public void drop(SessionOutbox outbox, String why) {
            PushHub.this.drop(outbox, why);
        }

        @Override
        public void failed(PushSession transport) {
            remove(transport);
            closeQuietly(transport, PushSession.CloseReason.SHUTDOWN);
        }
    };
    private final ExecutorService senders;
    private final AutoCloseable subscription;
    private final AtomicBoolean closed = new AtomicBoolean();

    public PushHub(KvStore store, ConfigService configs) {
        this(store, configs, DEFAULT_MAX_QUEUED);
    }

    public PushHub(KvStore store, ConfigService configs, int maxQueued) {
        this.store = store;
        this.log = new ConfigChangeLog(store);
        this.changes = new ChangeReplay(log, configs);
        this.maxQueued = maxQueued;
        AtomicInteger n = new AtomicInteger();
        this.senders = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "push-sender-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.subscription = store.subscribe(new FeedListener(), FEED_CAPACITY);
    }

    /** A key a client subscribes to, with the content md5 it holds (null: none given). */
    public record Subscription(ConfigKey key, String md5) {}

    /**
     * Subscribes {@code session} to {@code keys} (adding to what it has). With {@code sinceRevision}
     * (not null) every logged change to these keys after it is sent first; otherwise a key given
     * with an md5 gets a notice at once if the current config differs (a deleted or absent config
     * is a {@code deleted} notice); after that, live changes. Ends with {@link
     * PushSession#subscribed} carrying a revision up to which every change to these keys was sent.
     * Blocks while the change log is read.
     */
    public void subscribe(PushSession transport, List<Subscription> keys, Long sinceRevision) {
        if (closed.get()) {
            transport.close(PushSession.CloseReason.SHUTDOWN);
            return;
        }
        SessionOutbox s = sessions.computeIfAbsent(transport, t -> new SessionOutbox(t, maxQueued, senders, owner));
        long before = store.revision();
        Map<ConfigKey, String> md5s = new HashMap<>();
        synchronized (s) {
            if (s.closed) {
                return;
            }
            for (Subscription sub : keys) {
                md5s.put(sub.key(), sub.md5());
                long known = sinceRevision != null ? sinceRevision : before;
                s.sent.merge(sub.key(), known, Math::min);
                s.replaying.add(sub.key());
                byKey.add(sub.key(), s);
            }
        }
        // registered before reading: a change committed from here on is read, or held back, or both
        List<ConfigChangeLog.Change> replay;
        long upTo = before;
        if (sinceRevision != null) {
            ChangeReplay.Replay since = changes.since(md5s.keySet(), sinceRevision, before, maxQueued);
            if (since == null) {
                drop(s, "a replay of more than " + maxQueued + " changes");
                return;
            }
            replay = since.changes();
            upTo = since.upTo();
        } else {
            replay = changes.mismatches(md5s, before);
        }
        synchronized (s) {
            if (s.closed) {
                return;
            }
            for (ConfigChangeLog.Change c : replay) {
                if (sinceRevision != null) {
                    s.offerLocked(c, true);
                } else {
                    s.forceLocked(c);
                }
            }
            s.replaying.removeAll(md5s.keySet());
            s.enqueueLocked(new SessionOutbox.Outgoing(null, upTo));
            List<ConfigChangeLog.Change> held = new ArrayList<>(s.heldBack);
            s.heldBack.clear();
            for (ConfigChangeLog.Change c : held) {
                s.offerLocked(c, false);
            }
        }
    }

    /** Stops sending changes of {@code keys} to the session. */
    public void unsubscribe(PushSession transport, List<ConfigKey> keys) {
        SessionOutbox s = sessions.get(transport);
        if (s == null) {
            return;
        }
        synchronized (s) {
            for (ConfigKey key : keys) {
                s.sent.remove(key);
                s.replaying.remove(key);
                byKey.remove(key, s);
            }
            s.heldBack.removeIf(c -> !s.sent.containsKey(c.key()));
        }
    }

    /** Forgets the session (its connection closed). */
    public void remove(PushSession transport) {
        SessionOutbox s = sessions.remove(transport);
        if (s != null) {
            synchronized (s) {
                s.closeLocked();
                for (ConfigKey key : s.sent.keySet()) {
                    byKey.remove(key, s);
                }
            }
        }
    }

    /** Sessions connected. */
    public int sessions() {
        return sessions.size();
    }

    /** Stops listening to the feed and closes every session with {@link PushSession.CloseReason#SHUTDOWN}. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.warn("unsubscribing the push hub failed", e);
        }
        for (PushSession transport : List.copyOf(sessions.keySet())) {
            remove(transport);
            closeQuietly(transport, PushSession.CloseReason.SHUTDOWN);
        }
        senders.shutdown();
    }

    private void drop(SessionOutbox s, String why) {
        LOG.info("closing push session {}: {} queued (limit {})", s.transport, why, maxQueued);
        remove(s.transport);
        closeQuietly(s.transport, PushSession.CloseReason.TOO_SLOW);
    }

    private static void closeQuietly(PushSession transport, PushSession.CloseReason reason) {
        try {
            transport.close(reason);
        } catch (RuntimeException e) {
            LOG.debug("closing push session {} failed", transport, e);
        }
    }

    private void changed(ConfigChangeLog.Change change) {
        for (SessionOutbox s : List.copyOf(byKey.of(change.key()))) {
            synchronized (s) {
                if (!s.closed) {
                    s.offerLocked(change, false);
                }
            }
        }
    }

    private final class FeedListener implements ChangeListener {
        @Override
        public boolean hears(String keyspace) {
            return ConfigKeyspaces.CHANGES.equals(keyspace);
        }

        @Override
        public boolean direct() {
            return true; // a store read and a queue offer per session: the senders write
        }

        @Override
        public void onChange(ChangeEvent event) {
            if (byKey.isEmpty()) {
                return;
            }
            long revision = ConfigChangeLog.revisionOf(event.key());
            if (revision < 0) {
                return;
            }
            ConfigChangeLog.Change change;
            try {
                change = log.at(revision);
            } catch (RuntimeException e) {
                LOG.warn("ignoring an undecodable config change at revision {}", revision, e);
                return;
            }
            if (change != null) {
                changed(change);
            }
        }

        @Override
        public void onResync(long fromRevision) {
            changes.afterResync(
                    fromRevision,
                    () -> List.copyOf(byKey.keys()),
                    store::revision,
                    () -> !byKey.isEmpty(),
                    PushHub.this::changed);
        }

        @Override
        public String toString() {
            return "PushHub";
        }
    }
}
