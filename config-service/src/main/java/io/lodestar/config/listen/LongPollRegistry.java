package io.lodestar.config.listen;

import io.lodestar.config.BetaConfig;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Config long-polls held on this node, woken by this node's change feed: the server side of
 * nacos-client 1.4.x's {@code addListener}.
 *
 * <p>A held poll costs a map entry per listened key and one scheduled timeout, never a thread,
 * so a node can hold one for every listening client. Every node answers its own polls from its own feed, so a
 * client hears of a change through whichever node it polls.
 *
 * <p>A client listed in a config's gray release (beta) compares against the beta's MD5, everyone
 * else against the stable config's; so a change of either keyspace wakes the polls it concerns.
 *
 * <p>Futures returned by {@link #poll} complete on the caller's thread (answer at once), on the
 * feed's publishing thread or a change-feed thread (a key changed) or on the registry's timer
 * thread (timeout, or a change to a key with many polls): dependent stages must not block.
 */
public final class LongPollRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LongPollRegistry.class);
    /** Nacos never answers an unchanged long-poll sooner than this. */
    public static final long NACOS_MIN_HOLD_MS = 10_000;
    /** Nacos answers this much before the client's own timeout, so the answer arrives in time. */
    static final long HOLD_MARGIN_MS = 500;
    /**
     * The longest a poll is held, whatever the client asks: a held poll is a socket and a listener
     * entry, and a client asking for hours would pin them. nacos-client asks for 30 s and may be
     * configured up to a few minutes.
     */
    public static final long MAX_HOLD_MS = 300_000;
    /** Feed events buffered for the registry before it falls back to rechecking every held poll. */
    static final int FEED_CAPACITY = 65_536;
    /**
     * Held polls of one key answered on the feed's publishing thread; more are answered on the
     * timer thread, since that thread answers the change's writers only once they are done.
     */
    static final int DIRECT_ANSWERS = 64;

    /** Clients' last notices kept for the delivery report, at most. */
    static final int NOTICES_KEPT = 16_384;

    /** The limits' names, as an operator sets them and a refusal names them. */
    public static final String HELD_LIMIT = "longpoll.held";

    public static final String HELD_PER_ADDRESS_LIMIT = "longpoll.held-per-address";

    /**
     * How many polls the node holds at most, in all and from one client address; {@code refused}
     * hears the name of the limit each refusal met.
     */
    public record HoldCaps(int total, int perAddress, Consumer<String> refused) {
        public static final HoldCaps NONE = new HoldCaps(Integer.MAX_VALUE, Integer.MAX_VALUE, name -> {});
    }

    private final ConfigService configs;
    private final long minHoldMs;
    private final HoldCaps caps;
    private final AtomicInteger heldTotal = new AtomicInteger();
    private final ConcurrentHashMap<String, Integer> heldByAddress = new ConcurrentHashMap<>();
    private final KeyListeners<HeldPoll> byKey = new KeyListeners<>();
    private final ScheduledThreadPoolExecutor timer;
    private final AutoCloseable subscription;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Outlives the polls: a client told of a change polls again with a new poll (delivery reports read it). */
    private final RecentNotices notices = new RecentNotices(NOTICES_KEPT, 2 * MAX_HOLD_MS, System::currentTimeMillis);

    /** A registry with Nacos's hold rule: answer an unchanged poll after max(10 s, timeout − 0.5 s). */
    public LongPollRegistry(KvStore store, ConfigService configs) {
        this(store, configs, NACOS_MIN_HOLD_MS, HoldCaps.NONE);
    }

    /** As {@link #LongPollRegistry(KvStore, ConfigService)} with another floor; for unit tests. */
    public LongPollRegistry(KvStore store, ConfigService configs, long minHoldMs) {
        this(store, configs, minHoldMs, HoldCaps.NONE);
    }

    /** A registry with the given floor, holding no more polls than {@code caps} allow. */
    public LongPollRegistry(KvStore store, ConfigService configs, long minHoldMs, HoldCaps caps) {
        this.configs = configs;
        this.minHoldMs = minHoldMs;
        this.caps = caps;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "long-poll-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        this.subscription = store.subscribe(new FeedListener(), FEED_CAPACITY);
    }

    /**
     * How long an unchanged poll with the client's {@code Long-Pulling-Timeout} is held: a little
     * less than the client waits, at least the minimum and at most {@value #MAX_HOLD_MS} ms.
     */
    public long holdMs(long clientTimeoutMs) {
        return Math.min(MAX_HOLD_MS, Math.max(minHoldMs, clientTimeoutMs - HOLD_MARGIN_MS));
    }

    /**
     * Answers which of {@code entries} differ from this node's copy as {@code clientIp} is served it
     * (the beta for a listed IP, else the stable config). If some do, or {@code noHangup}
     * is set, the future is already complete (with the changed keys, possibly none). Otherwise the
     * poll is held until one of its keys changes to an MD5 other than the client's (completes with
     * that key) or {@link #holdMs} elapses (completes with an empty list). After {@link #close()}
     * nothing is held.
     *
     * @throws LimitExceededException when the poll would be held past the node's or the client
     *     address's {@link HoldCaps}; nothing is held then
     */
    public CompletableFuture<List<ConfigKey>> poll(
            List<ListeningEntry> entries, String clientIp, long clientTimeoutMs, boolean noHangup) {
        Map<ConfigKey, String> md5s = new LinkedHashMap<>();
        for (ListeningEntry e : entries) {
            md5s.put(e.key(), e.md5());
        }
        if (noHangup || closed.get()) {
            Map<ConfigKey, Current> cache = new HashMap<>();
            List<ConfigKey> changed = changed(md5s, clientIp, cache);
            told(clientIp, changed, cache);
            return CompletableFuture.completedFuture(changed);
        }
        reserve(clientIp);
        HeldPoll poll = new HeldPoll(md5s, clientIp);
        // index before checking: a change applied between the check and the indexing would
        // otherwise go unheard until the timeout
        for (ConfigKey key : md5s.keySet()) {
            byKey.add(key, poll);
        }
        Map<ConfigKey, Current> cache = new HashMap<>();
        List<ConfigKey> changed = changed(md5s, clientIp, cache);
        if (!changed.isEmpty()) {
            told(clientIp, changed, cache);
            poll.answer(changed);
            return poll.future;
        }
        try {
            poll.timeout = timer.schedule(() -> poll.answer(List.of()), holdMs(clientTimeoutMs), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            poll.answer(List.of()); // closed meanwhile
        }
        if (poll.future.isDone() && poll.timeout != null) {
            poll.timeout.cancel(false);
        }
        if (closed.get()) {
            poll.answer(List.of());
        }
        return poll.future;
    }

    /**
     * Which of {@code entries} differ from this node's copy as {@code clientIp} is served it, as
     * {@link #poll} with {@code noHangup} answers, without holding anything or recording a notice:
     * the comparison a gRPC listen answers with.
     */
    public List<ConfigKey> differing(List<ListeningEntry> entries, String clientIp) {
        Map<ConfigKey, String> md5s = new LinkedHashMap<>();
        for (ListeningEntry e : entries) {
            md5s.put(e.key(), e.md5());
        }
        return changed(md5s, clientIp, new HashMap<>());
    }

    private void told(String clientIp, List<ConfigKey> keys, Map<ConfigKey, Current> cache) {
        long now = System.currentTimeMillis();
        for (ConfigKey key : keys) {
            Current c = cache.get(key);
            notices.told(
                    clientIp,
                    key,
                    new Notice(c == null ? null : c.md5For(clientIp), now, Notice.LONG_POLL, null, null));
        }
    }

    /** Counts a poll about to be held against the caps, or refuses it. */
    private void reserve(String clientIp) {
        if (heldTotal.incrementAndGet() > caps.total()) {
            heldTotal.decrementAndGet();
            caps.refused().accept(HELD_LIMIT);
            throw LimitExceededException.tooMany(HELD_LIMIT, caps.total(), "this node holds its most long-polls");
        }
        boolean[] over = {false};
        heldByAddress.compute(clientIp, (ip, n) -> {
            int now = n == null ? 1 : n + 1;
            over[0] = now > caps.perAddress();
            return over[0] ? n : Integer.valueOf(now);
        });
        if (over[0]) {
            heldTotal.decrementAndGet();
            caps.refused().accept(HELD_PER_ADDRESS_LIMIT);
            throw LimitExceededException.tooMany(
                    HELD_PER_ADDRESS_LIMIT, caps.perAddress(), "this node holds the most long-polls of " + clientIp);
        }
    }

    private void release(String clientIp) {
        heldTotal.decrementAndGet();
        heldByAddress.computeIfPresent(clientIp, (ip, n) -> n <= 1 ? null : n - 1);
    }

    /** Polls currently held. */
    public int held() {
        return byKey.all().size();
    }

    /** The polls held now on {@code key}, each with its client's address and the MD5 it holds. */
    public List<ConfigListener> listeners(ConfigKey key) {
        List<ConfigListener> out = new ArrayList<>();
        for (HeldPoll p : List.copyOf(byKey.of(key))) {
            out.add(new ConfigListener(key, p.clientIp, p.md5s.get(key), notices.last(p.clientIp, key), null));
        }
        return out;
    }

    /** Every key the polls held now for the client at {@code clientIp} listen to. */
    public List<ConfigListener> listenersAt(String clientIp) {
        List<ConfigListener> out = new ArrayList<>();
        for (HeldPoll p : allHeld()) {
            if (p.clientIp.equals(clientIp)) {
                p.md5s.forEach((key, md5) ->
                        out.add(new ConfigListener(key, p.clientIp, md5, notices.last(p.clientIp, key), null)));
            }
        }
        return out;
    }

    /** Stops listening to the feed and answers every held poll with no change, so clients re-poll. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.warn("unsubscribing the long-poll registry failed", e);
        }
        for (HeldPoll p : allHeld()) {
            p.answer(List.of());
        }
        timer.shutdownNow();
    }

    private List<HeldPoll> allHeld() {
        return new ArrayList<>(byKey.all());
    }

    private List<ConfigKey> changed(Map<ConfigKey, String> clientMd5s, String clientIp, Map<ConfigKey, Current> cache) {
        List<ConfigKey> changed = new ArrayList<>();
        for (Map.Entry<ConfigKey, String> e : clientMd5s.entrySet()) {
            String current = cache.computeIfAbsent(e.getKey(), this::current).md5For(clientIp);
            if (!current.equals(e.getValue())) {
                changed.add(e.getKey());
            }
        }
        return changed;
    }

    private Current current(ConfigKey key) {
        // beta first, as the GET does: a promote between the reads shows its new content either way
        BetaConfig beta = configs.getBeta(key);
        Config c = configs.get(key);
        return new Current(c == null ? "" : c.md5(), beta);
    }

    /** What this node serves for one key: the stable MD5 ("" if none) and the beta, if any. */
    private record Current(String stableMd5, BetaConfig beta) {
        String md5For(String clientIp) {
            return beta != null && beta.servesTo(clientIp) ? beta.md5() : stableMd5;
        }
    }

    private void keyChanged(ConfigKey key) {
        Set<HeldPoll> polls = byKey.of(key);
        if (polls.isEmpty()) {
            return;
        }
        if (polls.size() <= DIRECT_ANSWERS) {
            answerStale(key, polls);
            return;
        }
        try {
            timer.execute(() -> answerStale(key, polls));
        } catch (RejectedExecutionException e) {
            // closed: every held poll was answered
        }
    }

    private void answerStale(ConfigKey key, Set<HeldPoll> polls) {
        Current current = current(key);
        for (HeldPoll p : List.copyOf(polls)) {
            if (!current.md5For(p.clientIp).equals(p.md5s.get(key))) {
                told(p.clientIp, List.of(key), Map.of(key, current));
                p.answer(List.of(key));
            }
        }
    }

    private void recheckAll() {
        Map<ConfigKey, Current> cache = new HashMap<>();
        for (HeldPoll p : allHeld()) {
            List<ConfigKey> changed = changed(p.md5s, p.clientIp, cache);
            if (!changed.isEmpty()) {
                told(p.clientIp, changed, cache);
                p.answer(changed);
            }
        }
    }

    private final class HeldPoll {
        final Map<ConfigKey, String> md5s;
        final String clientIp;
        final CompletableFuture<List<ConfigKey>> future = new CompletableFuture<>();
        final AtomicBoolean answered = new AtomicBoolean();
        volatile ScheduledFuture<?> timeout;

        HeldPoll(Map<ConfigKey, String> md5s, String clientIp) {
            this.md5s = md5s;
            this.clientIp = clientIp;
        }

        void answer(List<ConfigKey> changed) {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            release(clientIp);
            for (ConfigKey key : md5s.keySet()) {
                byKey.remove(key, this);
            }
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            future.complete(changed);
        }
    }

    private final class FeedListener implements ChangeListener {
        @Override
        public boolean hears(String keyspace) {
            return ConfigKeyspaces.CONFIG.equals(keyspace) || ConfigKeyspaces.BETA.equals(keyspace);
        }

        @Override
        public boolean direct() {
            return true; // a store read and a few answers; big fan-outs go to the timer thread
        }

        @Override
        public void onChange(ChangeEvent event) {
            ConfigKey key;
            try {
                key = ConfigKey.fromStoreKey(event.key());
            } catch (RuntimeException e) {
                LOG.warn("ignoring a change to an undecodable config key at revision {}", event.revision(), e);
                return;
            }
            keyChanged(key);
        }

        @Override
        public void onResync(long fromRevision) {
            recheckAll();
        }

        @Override
        public String toString() {
            return "LongPollRegistry";
        }
    }
}
