package io.lodestar.config.push;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeListener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
    private static final int REPLAY_PAGE = 1_000;

    private final KvStore store;
    private final ConfigService configs;
    private final ConfigChangeLog log;
    private final int maxQueued;
    private final Map<PushSession, Session> sessions = new ConcurrentHashMap<>();
    private final Map<ConfigKey, Set<Session>> byKey = new ConcurrentHashMap<>();
    private final ExecutorService senders;
    private final AutoCloseable subscription;
    private final AtomicBoolean closed = new AtomicBoolean();

    public PushHub(KvStore store, ConfigService configs) {
        this(store, configs, DEFAULT_MAX_QUEUED);
    }

    public PushHub(KvStore store, ConfigService configs, int maxQueued) {
        this.store = store;
        this.configs = configs;
        this.log = new ConfigChangeLog(store);
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
        Session s = sessions.computeIfAbsent(transport, Session::new);
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
                byKey.computeIfAbsent(sub.key(), k -> ConcurrentHashMap.newKeySet())
                        .add(s);
            }
        }
        // registered before reading: a change committed from here on is read, or held back, or both
        List<ConfigChangeLog.Change> replay = new ArrayList<>();
        long upTo = before;
        if (sinceRevision != null) {
            long after = sinceRevision;
            while (true) {
                List<ConfigChangeLog.Change> page = log.after(after, REPLAY_PAGE);
                for (ConfigChangeLog.Change c : page) {
                    if (md5s.containsKey(c.key())) {
                        replay.add(c);
                        if (replay.size() > maxQueued) {
                            drop(s, "a replay of more than " + maxQueued + " changes");
                            return;
                        }
                    }
                    after = c.revision();
                }
                if (page.size() < REPLAY_PAGE) {
                    break;
                }
            }
            upTo = Math.max(upTo, after);
            if (!log.complete(sinceRevision)) {
                // trimmed past it (checked after reading: the floor only rises, with each trim)
                replay = changesSinceFromState(md5s.keySet(), sinceRevision, before);
            }
        } else {
            for (Map.Entry<ConfigKey, String> e : md5s.entrySet()) {
                if (e.getValue() == null) {
                    continue;
                }
                Config current = configs.get(e.getKey());
                String currentMd5 = current == null ? "" : current.md5();
                if (!currentMd5.equals(e.getValue())) {
                    replay.add(new ConfigChangeLog.Change(
                            current == null ? before : current.modRevision(),
                            e.getKey(),
                            current == null ? null : currentMd5));
                }
            }
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
            s.enqueueLocked(new Outgoing(null, upTo));
            List<ConfigChangeLog.Change> held = new ArrayList<>(s.heldBack);
            s.heldBack.clear();
            for (ConfigChangeLog.Change c : held) {
                s.offerLocked(c, false);
            }
        }
    }

    /**
     * For a client resuming from before the change log's floor: a notice for each key whose config
     * changed after {@code sinceRevision} (its current md5 and revision), and a {@code deleted}
     * notice for each key with no config now (it may have had none before either; a client takes a
     * delete of what it lacks as a no-op).
     */
    private List<ConfigChangeLog.Change> changesSinceFromState(Iterable<ConfigKey> keys, long sinceRevision, long now) {
        List<ConfigChangeLog.Change> out = new ArrayList<>();
        for (ConfigKey key : keys) {
            Config current = configs.get(key);
            if (current == null) {
                out.add(new ConfigChangeLog.Change(now, key, null));
            } else if (current.modRevision() > sinceRevision) {
                out.add(new ConfigChangeLog.Change(current.modRevision(), key, current.md5()));
            }
        }
        return out;
    }

    /** Stops sending changes of {@code keys} to the session. */
    public void unsubscribe(PushSession transport, List<ConfigKey> keys) {
        Session s = sessions.get(transport);
        if (s == null) {
            return;
        }
        synchronized (s) {
            for (ConfigKey key : keys) {
                s.sent.remove(key);
                s.replaying.remove(key);
                unindex(key, s);
            }
            s.heldBack.removeIf(c -> !s.sent.containsKey(c.key()));
        }
    }

    /** Forgets the session (its connection closed). */
    public void remove(PushSession transport) {
        Session s = sessions.remove(transport);
        if (s != null) {
            synchronized (s) {
                s.closed = true;
                s.queue.clear();
                s.heldBack.clear();
                for (ConfigKey key : s.sent.keySet()) {
                    unindex(key, s);
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

    private void unindex(ConfigKey key, Session s) {
        byKey.computeIfPresent(key, (k, set) -> {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
    }

    private void drop(Session s, String why) {
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
        Set<Session> listening = byKey.get(change.key());
        if (listening == null) {
            return;
        }
        for (Session s : List.copyOf(listening)) {
            synchronized (s) {
                if (!s.closed) {
                    s.offerLocked(change, false);
                }
            }
        }
    }

    /** A notice ({@code change} not null) or a subscribe acknowledgement up to {@code revision}. */
    private record Outgoing(ConfigChangeLog.Change change, long revision) {}

    private final class Session implements Runnable {
        final PushSession transport;
        /** Per subscribed key, the highest revision the client knows of (sent, or given by it). */
        final Map<ConfigKey, Long> sent = new HashMap<>();
        /** Keys whose replay is being read: their live changes wait in {@link #heldBack}. */
        final Set<ConfigKey> replaying = new java.util.HashSet<>();

        final List<ConfigChangeLog.Change> heldBack = new ArrayList<>();
        final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
        boolean scheduled;
        boolean closed;

        Session(PushSession transport) {
            this.transport = transport;
        }

        /** Queues the change unless the client knows of it already; {@code replayed}: from the log read, not live. */
        void offerLocked(ConfigChangeLog.Change c, boolean replayed) {
            Long known = sent.get(c.key());
            if (known == null) {
                return; // unsubscribed
            }
            if (!replayed && replaying.contains(c.key())) {
                if (heldBack.size() >= maxQueued) {
                    closed = true;
                    senders.execute(() -> drop(this, heldBack.size() + " held-back changes"));
                    return;
                }
                heldBack.add(c);
                return;
            }
            if (c.revision() <= known) {
                return;
            }
            sent.put(c.key(), c.revision());
            enqueueLocked(new Outgoing(c, c.revision()));
        }

        /** Queues an md5-mismatch notice: the client's content is stale whatever revision it had. */
        void forceLocked(ConfigChangeLog.Change c) {
            Long known = sent.get(c.key());
            if (known == null) {
                return;
            }
            sent.put(c.key(), Math.max(known, c.revision()));
            enqueueLocked(new Outgoing(c, c.revision()));
        }

        void enqueueLocked(Outgoing o) {
            if (closed) {
                return;
            }
            if (queue.size() >= maxQueued) {
                closed = true;
                int size = queue.size();
                try {
                    senders.execute(() -> drop(this, size + " messages"));
                } catch (RejectedExecutionException e) {
                    // shutting down: close() closes it
                }
                return;
            }
            queue.addLast(o);
            if (!scheduled) {
                scheduled = true;
                try {
                    senders.execute(this);
                } catch (RejectedExecutionException e) {
                    scheduled = false;
                }
            }
        }

        @Override
        public void run() {
            while (true) {
                Outgoing o;
                synchronized (this) {
                    o = closed ? null : queue.pollFirst();
                    if (o == null) {
                        scheduled = false;
                        return;
                    }
                }
                try {
                    if (o.change() != null) {
                        transport.send(o.change());
                    } else {
                        transport.subscribed(o.revision());
                    }
                } catch (RuntimeException e) {
                    LOG.debug("push session {} failed to send; dropping it", transport, e);
                    remove(transport);
                    closeQuietly(transport, PushSession.CloseReason.SHUTDOWN);
                    return;
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
            // per-key revisions drop what was sent already; a change may be logged from then on
            long after = fromRevision - 1;
            if (!log.complete(after)) {
                changesSinceFromState(List.copyOf(byKey.keySet()), after, store.revision())
                        .forEach(PushHub.this::changed);
                return;
            }
            while (!byKey.isEmpty()) {
                List<ConfigChangeLog.Change> page = log.after(after, REPLAY_PAGE);
                for (ConfigChangeLog.Change c : page) {
                    changed(c);
                    after = c.revision();
                }
                if (page.size() < REPLAY_PAGE) {
                    return;
                }
            }
        }

        @Override
        public String toString() {
            return "PushHub";
        }
    }
}
