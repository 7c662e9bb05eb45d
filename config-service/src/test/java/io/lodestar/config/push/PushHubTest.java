package io.lodestar.config.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The push hub against a real one-node Raft store on RocksDB, fed by its real change feed. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PushHubTest {
    private static final long WAIT_S = 10;
    /** How long a session that must hear nothing more is watched. */
    private static final Duration QUIET = Duration.ofMillis(200);

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static ConfigService configs;
    private static final AtomicInteger IDS = new AtomicInteger();

    @BeforeAll
    static void startStore() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
    }

    @AfterAll
    static void stopStore() {
        if (store != null) {
            store.close();
        }
    }

    /** Records what the hub sends; "ack:R" for a subscribed acknowledgement. */
    static final class Recorder implements PushSession {
        final List<ConfigChangeLog.Change> notices = new ArrayList<>();
        final List<String> all = new ArrayList<>();
        volatile CloseReason closed;
        volatile CountDownLatch gate;

        @Override
        public void send(ConfigChangeLog.Change change) {
            CountDownLatch g = gate;
            if (g != null) {
                try {
                    g.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            synchronized (this) {
                notices.add(change);
                all.add("change:" + change.revision());
            }
        }

        @Override
        public synchronized void subscribed(long revision) {
            all.add("ack:" + revision);
        }

        @Override
        public void close(CloseReason reason) {
            closed = reason;
        }

        synchronized List<ConfigChangeLog.Change> notices() {
            return List.copyOf(notices);
        }

        synchronized List<String> all() {
            return List.copyOf(all);
        }

        List<Long> revisions() {
            return notices().stream().map(ConfigChangeLog.Change::revision).toList();
        }

        void awaitUntil(String what, Predicate<Recorder> check) {
            Await.until(what, () -> check.test(this), () -> "; got " + all());
        }
    }

    private static ConfigKey newKey(TestInfo info) {
        return new ConfigKey("", "G", info.getTestMethod().orElseThrow().getName() + "-" + IDS.incrementAndGet());
    }

    private static long publish(ConfigKey key, String content) throws Exception {
        return configs.publish(new PublishRequest(key, content, null, null, null, null, null, null))
                .get(WAIT_S, TimeUnit.SECONDS);
    }

    private static String md5(String content) {
        return ContentMd5.of(content);
    }

    private static List<PushHub.Subscription> keys(ConfigKey... keys) {
        return java.util.Arrays.stream(keys)
                .map(k -> new PushHub.Subscription(k, null))
                .toList();
    }

    @Test
    void replaysEveryChangeAfterTheGivenRevisionThenSendsLiveOnes() throws Exception {
        ConfigKey key = newKey(info());
        ConfigKey other = newKey(info());
        long r1 = publish(key, "v1");
        long r2 = publish(key, "v2");
        publish(other, "x");
        long r3 = publish(key, "v3");
        try (PushHub hub = new PushHub(store, configs)) {
            Recorder session = new Recorder();
            hub.subscribe(session, keys(key), r1);
            session.awaitUntil("the replay and its ack", s -> s.all().stream().anyMatch(m -> m.startsWith("ack:")));
            assertEquals(List.of(r2, r3), session.revisions(), "changes to other keys are not sent");
            assertEquals(md5("v3"), session.notices().get(1).md5());
            assertTrue(Long.parseLong(session.all().get(2).substring(4)) >= r3, "ack covers the replay");

            long r4 = publish(key, "v4");
            session.awaitUntil("the live change", s -> s.notices().size() == 3);
            assertEquals(List.of(r2, r3, r4), session.revisions());
            assertEquals(md5("v4"), session.notices().get(2).md5());
            assertEquals(key, session.notices().get(2).key());
        }
    }

    /**
     * A client resuming from far back is not replayed the log entry by entry: past a budget (1,000
     * entries and a few per key) the replay reads each key's config once instead, so a subscribe
     * with {@code sinceRevision} 0 cannot make the node read its whole change log. The client still
     * learns every key that changed, at its current revision and md5.
     */
    @Test
    void aReplayFromFarBackSendsEachChangedKeyOnceAtItsLatest() throws Exception {
        ConfigKey key = newKey(info());
        ConfigKey quiet = newKey(info());
        long start = publish(quiet, "q");
        long last = 0;
        for (int i = 1; i <= 1_100; i++) {
            last = publish(key, "v" + i);
        }
        try (PushHub hub = new PushHub(store, configs)) {
            Recorder session = new Recorder();
            hub.subscribe(session, keys(key, quiet), start);
            session.awaitUntil("the replay and its ack", s -> s.all().stream().anyMatch(m -> m.startsWith("ack:")));
            assertEquals(1, session.notices().size(), "one notice, not 1,100: " + session.revisions());
            assertEquals(key, session.notices().get(0).key(), "the unchanged key is not sent");
            assertEquals(last, session.notices().get(0).revision());
            assertEquals(md5("v1100"), session.notices().get(0).md5());
        }
    }

    @Test
    void changesRacingTheReplayAreSentOnceEachInRevisionOrder() throws Exception {
        ConfigKey key = newKey(info());
        long first = publish(key, "v0");
        List<Long> published = new ArrayList<>();
        try (PushHub hub = new PushHub(store, configs)) {
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 1; i <= 150; i++) {
                        long r = publish(key, "v" + i);
                        synchronized (published) {
                            published.add(r);
                        }
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            Recorder session = new Recorder();
            Await.until("50 changes published", () -> {
                synchronized (published) {
                    return published.size() >= 50;
                }
            });
            hub.subscribe(session, keys(key), first);
            writer.get(60, TimeUnit.SECONDS);
            long last = published.get(published.size() - 1);
            session.awaitUntil(
                    "every change",
                    s -> !s.notices().isEmpty()
                            && s.notices().get(s.notices().size() - 1).revision() >= last);
            Await.holdsFor(
                    QUIET,
                    "every change after the given revision, once, in order",
                    () -> published.equals(session.revisions()),
                    session::revisions);
        }
    }

    @Test
    void aDeleteIsNotifiedAndReplayedAsDeleted() throws Exception {
        ConfigKey key = newKey(info());
        long r1 = publish(key, "v1");
        try (PushHub hub = new PushHub(store, configs)) {
            Recorder live = new Recorder();
            hub.subscribe(live, keys(key), null);
            live.awaitUntil("ack", s -> s.all().size() == 1);
            configs.delete(key, null, null).get(WAIT_S, TimeUnit.SECONDS);
            live.awaitUntil("the delete", s -> s.notices().size() == 1);
            assertTrue(live.notices().get(0).deleted());
            assertNull(live.notices().get(0).md5());

            Recorder replayed = new Recorder();
            hub.subscribe(replayed, keys(key), r1);
            replayed.awaitUntil("the replayed delete", s -> s.notices().size() == 1);
            assertTrue(replayed.notices().get(0).deleted());
            assertEquals(
                    live.notices().get(0).revision(), replayed.notices().get(0).revision());
        }
    }

    @Test
    void aStaleMd5IsNotifiedAtOnceAndACurrentOneIsNot() throws Exception {
        ConfigKey key = newKey(info());
        ConfigKey absent = newKey(info());
        long r = publish(key, "now");
        try (PushHub hub = new PushHub(store, configs)) {
            Recorder stale = new Recorder();
            hub.subscribe(
                    stale,
                    List.of(
                            new PushHub.Subscription(key, md5("before")),
                            new PushHub.Subscription(absent, md5("gone"))),
                    null);
            stale.awaitUntil("two notices and the ack", s -> s.all().size() == 3);
            ConfigChangeLog.Change changed = stale.notices().stream()
                    .filter(c -> c.key().equals(key))
                    .findFirst()
                    .orElseThrow();
            assertEquals(r, changed.revision());
            assertEquals(md5("now"), changed.md5());
            assertTrue(stale.notices().stream().anyMatch(c -> c.key().equals(absent) && c.deleted()));

            Recorder current = new Recorder();
            hub.subscribe(current, List.of(new PushHub.Subscription(key, md5("now"))), null);
            current.awaitUntil("the ack", s -> s.all().size() == 1);
            Await.holdsFor(
                    QUIET,
                    "no notice for a config the client holds current",
                    () -> current.notices().isEmpty(),
                    current::notices);
        }
    }

    @Test
    void unsubscribedKeysAreNoLongerNotified() throws Exception {
        ConfigKey key = newKey(info());
        try (PushHub hub = new PushHub(store, configs)) {
            Recorder session = new Recorder();
            hub.subscribe(session, keys(key), null);
            long r1 = publish(key, "v1");
            session.awaitUntil("the change", s -> s.notices().size() == 1);
            hub.unsubscribe(session, List.of(key));
            publish(key, "v2");
            Await.holdsFor(
                    QUIET,
                    "no notice after the unsubscribe",
                    () -> List.of(r1).equals(session.revisions()),
                    session::revisions);
        }
    }

    @Test
    void aSessionThatCannotKeepUpIsClosedAsTooSlow() throws Exception {
        ConfigKey key = newKey(info());
        try (PushHub hub = new PushHub(store, configs, 5)) {
            Recorder slow = new Recorder();
            slow.gate = new CountDownLatch(1);
            hub.subscribe(slow, keys(key), null);
            for (int i = 0; i < 12; i++) {
                publish(key, "v" + i);
            }
            slow.awaitUntil("the close", s -> s.closed != null);
            assertEquals(PushSession.CloseReason.TOO_SLOW, slow.closed);
            assertEquals(0, hub.sessions());
            slow.gate.countDown();
        }
    }

    @Test
    void closingTheHubClosesEverySessionAsShutdown() throws Exception {
        Recorder session = new Recorder();
        PushHub hub = new PushHub(store, configs);
        hub.subscribe(session, keys(new ConfigKey("", "G", "shutdown-" + IDS.incrementAndGet())), null);
        hub.close();
        assertEquals(PushSession.CloseReason.SHUTDOWN, session.closed);
    }

    private TestInfo testInfo;

    @org.junit.jupiter.api.BeforeEach
    void remember(TestInfo info) {
        this.testInfo = info;
    }

    private TestInfo info() {
        return testInfo;
    }
}
