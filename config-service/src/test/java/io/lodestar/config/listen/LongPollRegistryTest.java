package io.lodestar.config.listen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The long-poll registry against a real one-node Raft store on RocksDB, woken by its real change feed. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LongPollRegistryTest {
    /** Short floor for the tests that wait for a timeout; Nacos's own is 10 s. */
    private static final long FLOOR_MS = 300;

    private static final long WAIT_S = 10;
    /** How long a poll that must not be answered is watched. */
    private static final Duration QUIET = Duration.ofMillis(200);
    /** The address polls come from unless a test says otherwise. */
    private static final String CLIENT = "10.0.0.1";

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

    private static ConfigKey newKey(TestInfo info) {
        return new ConfigKey("", "G", info.getTestMethod().orElseThrow().getName() + "-" + IDS.incrementAndGet());
    }

    private static void publish(ConfigKey key, String content) throws Exception {
        configs.publish(new PublishRequest(key, content, null, null, null, null, null, null))
                .get(WAIT_S, TimeUnit.SECONDS);
    }

    private static String md5(String content) {
        return ContentMd5.of(content);
    }

    @Test
    void holdsForTheLongerOfTheFloorAndHalfASecondLessThanTheClientTimeout() {
        try (LongPollRegistry nacos = new LongPollRegistry(store, configs)) {
            assertEquals(29_500, nacos.holdMs(30_000), "nacos-client's 30 s timeout");
            assertEquals(10_000, nacos.holdMs(10_000), "never below 10 s");
            assertEquals(10_000, nacos.holdMs(0), "never below 10 s");
            assertEquals(LongPollRegistry.MAX_HOLD_MS, nacos.holdMs(Long.MAX_VALUE), "never above the cap");
            assertEquals(LongPollRegistry.MAX_HOLD_MS, nacos.holdMs(86_400_000), "a day is capped");
        }
    }

    @Test
    void pollsPastTheCapsAreRefusedNamingTheCapAndAnAnsweredPollFreesItsPlace(TestInfo info) throws Exception {
        ConfigKey missing = newKey(info);
        List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        LongPollRegistry.HoldCaps caps = new LongPollRegistry.HoldCaps(3, 2, refused::add);
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000, caps)) {
            List<ListeningEntry> entries = List.of(new ListeningEntry(missing, ""));
            CompletableFuture<List<ConfigKey>> first = registry.poll(entries, "10.0.0.1", 60_000, false);
            registry.poll(entries, "10.0.0.1", 60_000, false);
            io.lodestar.error.LimitExceededException perAddress = org.junit.jupiter.api.Assertions.assertThrows(
                    io.lodestar.error.LimitExceededException.class,
                    () -> registry.poll(entries, "10.0.0.1", 60_000, false));
            assertEquals(LongPollRegistry.HELD_PER_ADDRESS_LIMIT, perAddress.limit());
            registry.poll(entries, "10.0.0.2", 60_000, false); // another address: held
            io.lodestar.error.LimitExceededException total = org.junit.jupiter.api.Assertions.assertThrows(
                    io.lodestar.error.LimitExceededException.class,
                    () -> registry.poll(entries, "10.0.0.3", 60_000, false));
            assertEquals(LongPollRegistry.HELD_LIMIT, total.limit());
            assertEquals(3, registry.held(), "a refused poll is not held");
            assertEquals(List.of(LongPollRegistry.HELD_PER_ADDRESS_LIMIT, LongPollRegistry.HELD_LIMIT), refused);

            publish(missing, "now it exists"); // answers every held poll
            assertEquals(List.of(missing), first.get(WAIT_S, TimeUnit.SECONDS));
            Await.until("every poll answered", () -> registry.held() == 0);
            registry.poll(entries, "10.0.0.1", 60_000, false); // its places are free again
            registry.poll(entries, "10.0.0.3", 60_000, false);
        }
    }

    @Test
    void aStaleMd5IsAnsweredAtOnceWithOnlyTheChangedKeys(TestInfo info) throws Exception {
        ConfigKey changed = newKey(info);
        ConfigKey current = newKey(info);
        publish(changed, "v2");
        publish(current, "c");
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, FLOOR_MS)) {
            CompletableFuture<List<ConfigKey>> f = registry.poll(
                    List.of(new ListeningEntry(changed, md5("v1")), new ListeningEntry(current, md5("c"))),
                    CLIENT,
                    30_000,
                    false);
            assertTrue(f.isDone(), "answered without waiting");
            assertEquals(List.of(changed), f.get());
            assertEquals(0, registry.held());
        }
    }

    @Test
    void aConfigDeletedSinceTheClientReadItIsAChange(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, FLOOR_MS)) {
            CompletableFuture<List<ConfigKey>> f =
                    registry.poll(List.of(new ListeningEntry(key, md5("gone"))), CLIENT, 30_000, false);
            assertEquals(List.of(key), f.getNow(null), "client holds content, server has none");
        }
    }

    @Test
    void aMissingConfigWithAnEmptyMd5IsNotAChangeAndIsHeldUntilTheTimeout(TestInfo info) throws Exception {
        ConfigKey missing = newKey(info);
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, FLOOR_MS)) {
            long start = System.nanoTime();
            CompletableFuture<List<ConfigKey>> f =
                    registry.poll(List.of(new ListeningEntry(missing, "")), CLIENT, 0, false);
            assertFalse(f.isDone(), "held, not answered");
            assertEquals(1, registry.held());
            assertEquals(List.of(), f.get(WAIT_S, TimeUnit.SECONDS));
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(elapsedMs >= FLOOR_MS, "held for the floor, answered after " + elapsedMs + " ms");
            assertEquals(0, registry.held(), "a timed-out poll leaves the index");
        }
    }

    @Test
    void noHangupAnswersAtOnceEvenWhenNothingChanged(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publish(key, "v");
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, FLOOR_MS)) {
            CompletableFuture<List<ConfigKey>> f =
                    registry.poll(List.of(new ListeningEntry(key, md5("v"))), CLIENT, 30_000, true);
            assertEquals(List.of(), f.getNow(null));
            assertEquals(0, registry.held());
        }
    }

    @Test
    void aHeldPollIsAnsweredWithItsKeyWhenThatKeyChanges(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        ConfigKey other = newKey(info);
        publish(key, "v1");
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000)) {
            CompletableFuture<List<ConfigKey>> f = registry.poll(
                    List.of(new ListeningEntry(other, ""), new ListeningEntry(key, md5("v1"))), CLIENT, 60_000, false);
            assertFalse(f.isDone());
            publish(key, "v2");
            assertEquals(List.of(key), f.get(WAIT_S, TimeUnit.SECONDS));
            assertEquals(0, registry.held(), "an answered poll leaves the index under every key");
        }
    }

    @Test
    void aDeleteWakesAPollThatHeldTheContent(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publish(key, "v1");
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000)) {
            CompletableFuture<List<ConfigKey>> f =
                    registry.poll(List.of(new ListeningEntry(key, md5("v1"))), CLIENT, 60_000, false);
            configs.delete(key, null, null).get(WAIT_S, TimeUnit.SECONDS);
            assertEquals(List.of(key), f.get(WAIT_S, TimeUnit.SECONDS));
        }
    }

    @Test
    void changesThatLeaveTheClientsMd5OrOtherKeysDoNotAnswer(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        ConfigKey unrelated = newKey(info);
        publish(key, "v1");
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000)) {
            CompletableFuture<List<ConfigKey>> f =
                    registry.poll(List.of(new ListeningEntry(key, md5("v1"))), CLIENT, 60_000, false);
            publish(key, "v1"); // same content again: same md5
            publish(unrelated, "x");
            // a later change to the key is heard in order after those two events, so if either had
            // answered the poll it would show here as an answer without the v2 publish
            CompletableFuture<List<ConfigKey>> probe =
                    registry.poll(List.of(new ListeningEntry(unrelated, md5("x"))), CLIENT, 60_000, true);
            assertEquals(List.of(), probe.get());
            publish(key, "v2");
            assertEquals(List.of(key), f.get(WAIT_S, TimeUnit.SECONDS));
            // and the earlier events really were delivered before v2: a poll taken now with v1 is stale
            assertEquals(
                    List.of(key),
                    registry.poll(List.of(new ListeningEntry(key, md5("v1"))), CLIENT, 0, true)
                            .get());
        }
    }

    @Test
    void holdsTenThousandPollsWithoutAThreadEachAndOnePublishWakesThoseOnItsKey(TestInfo info) throws Exception {
        ConfigKey hot = newKey(info);
        publish(hot, "v1");
        int n = 10_000;
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000)) {
            int threadsBefore = Thread.activeCount();
            List<CompletableFuture<List<ConfigKey>>> onHot = new ArrayList<>();
            List<CompletableFuture<List<ConfigKey>>> elsewhere = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ConfigKey own = new ConfigKey("t" + (i % 10), "G", "own-" + i);
                if (i % 2 == 0) {
                    onHot.add(registry.poll(
                            List.of(new ListeningEntry(own, ""), new ListeningEntry(hot, md5("v1"))),
                            CLIENT,
                            60_000,
                            false));
                } else {
                    elsewhere.add(registry.poll(List.of(new ListeningEntry(own, "")), CLIENT, 60_000, false));
                }
            }
            assertEquals(n, registry.held());
            assertTrue(
                    Thread.activeCount() - threadsBefore < 10,
                    "no thread per poll: " + threadsBefore + " -> " + Thread.activeCount());
            publish(hot, "v2");
            CompletableFuture.allOf(onHot.toArray(CompletableFuture[]::new)).get(WAIT_S, TimeUnit.SECONDS);
            for (CompletableFuture<List<ConfigKey>> f : onHot) {
                assertEquals(List.of(hot), f.get());
            }
            assertEquals(n / 2, registry.held(), "only the polls on the published key were answered");
            assertTrue(elsewhere.stream().noneMatch(CompletableFuture::isDone));
        }
    }

    @Test
    void closeAnswersEveryHeldPollEmptyAndStopsListening(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publish(key, "v1");
        LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000);
        CompletableFuture<List<ConfigKey>> f =
                registry.poll(List.of(new ListeningEntry(key, md5("v1"))), CLIENT, 60_000, false);
        registry.close();
        assertEquals(List.of(), f.getNow(null), "answered by close, so the client re-polls");
        assertEquals(0, registry.held());
        CompletableFuture<List<ConfigKey>> after =
                registry.poll(List.of(new ListeningEntry(key, md5("v1"))), CLIENT, 60_000, false);
        assertEquals(List.of(), after.getNow(null), "nothing is held after close");
        assertEquals(
                List.of(key),
                registry.poll(List.of(new ListeningEntry(key, "other")), CLIENT, 60_000, false)
                        .getNow(null),
                "a stale md5 is still reported after close");
    }

    private static void publishBeta(ConfigKey key, String content, String ips) throws Exception {
        configs.publishBeta(new PublishRequest(key, content, null, null, null, null, null, null), ips)
                .get(WAIT_S, TimeUnit.SECONDS);
    }

    @Test
    void aClientInTheBetaListComparesAgainstTheBetaAndOthersAgainstTheStable(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publish(key, "stable");
        publishBeta(key, "beta", CLIENT + ",::1");
        String other = "10.9.9.9";
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, FLOOR_MS)) {
            assertEquals(
                    List.of(),
                    registry.poll(List.of(new ListeningEntry(key, md5("beta"))), CLIENT, 0, true)
                            .get());
            assertEquals(
                    List.of(key),
                    registry.poll(List.of(new ListeningEntry(key, md5("stable"))), CLIENT, 0, true)
                            .get());
            assertEquals(
                    List.of(),
                    registry.poll(List.of(new ListeningEntry(key, md5("beta"))), "0:0:0:0:0:0:0:1", 0, true)
                            .get(),
                    "IPv6 compared in canonical form");
            assertEquals(
                    List.of(),
                    registry.poll(List.of(new ListeningEntry(key, md5("beta"))), "[::1]", 0, true)
                            .get(),
                    "a bracketed IPv6 client address");
            assertEquals(
                    List.of(),
                    registry.poll(List.of(new ListeningEntry(key, md5("stable"))), other, 0, true)
                            .get());
            assertEquals(
                    List.of(key),
                    registry.poll(List.of(new ListeningEntry(key, md5("beta"))), other, 0, true)
                            .get());
        }
    }

    @Test
    void aBetaWithoutAStableConfigIsNothingForClientsNotListed(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publishBeta(key, "beta only", CLIENT);
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, FLOOR_MS)) {
            assertEquals(
                    List.of(),
                    registry.poll(List.of(new ListeningEntry(key, "")), "10.9.9.9", 0, true)
                            .get());
            assertEquals(
                    List.of(key),
                    registry.poll(List.of(new ListeningEntry(key, "")), CLIENT, 0, true)
                            .get());
        }
    }

    @Test
    void aBetaPublishWakesOnlyTheListedClientsAndStoppingItWakesThemAgain(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publish(key, "stable");
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000)) {
            CompletableFuture<List<ConfigKey>> listed =
                    registry.poll(List.of(new ListeningEntry(key, md5("stable"))), CLIENT, 60_000, false);
            CompletableFuture<List<ConfigKey>> notListed =
                    registry.poll(List.of(new ListeningEntry(key, md5("stable"))), "10.9.9.9", 60_000, false);
            assertEquals(2, registry.held());
            publishBeta(key, "beta", CLIENT);
            assertEquals(List.of(key), listed.get(WAIT_S, TimeUnit.SECONDS));
            // both polls were checked on the same feed event, so the other one's fate is already decided
            Await.holdsFor(QUIET, "a client not listed keeps waiting", () -> !notListed.isDone());

            CompletableFuture<List<ConfigKey>> onBeta =
                    registry.poll(List.of(new ListeningEntry(key, md5("beta"))), CLIENT, 60_000, false);
            assertFalse(onBeta.isDone());
            configs.stopBeta(key).get(WAIT_S, TimeUnit.SECONDS);
            assertEquals(List.of(key), onBeta.get(WAIT_S, TimeUnit.SECONDS), "back to the stable content");
            Await.holdsFor(QUIET, "stopping a beta changes nothing for clients not listed", () -> !notListed.isDone());
        }
    }

    @Test
    void promotingABetaWakesTheClientsNotListedAndLeavesTheListedOnesAlone(TestInfo info) throws Exception {
        ConfigKey key = newKey(info);
        publish(key, "stable");
        publishBeta(key, "beta", CLIENT);
        try (LongPollRegistry registry = new LongPollRegistry(store, configs, 60_000)) {
            CompletableFuture<List<ConfigKey>> listed =
                    registry.poll(List.of(new ListeningEntry(key, md5("beta"))), CLIENT, 60_000, false);
            CompletableFuture<List<ConfigKey>> notListed =
                    registry.poll(List.of(new ListeningEntry(key, md5("stable"))), "10.9.9.9", 60_000, false);
            configs.promoteBeta(key, null, null).get(WAIT_S, TimeUnit.SECONDS);
            assertEquals(List.of(key), notListed.get(WAIT_S, TimeUnit.SECONDS));
            Await.holdsFor(QUIET, "the listed client already holds the promoted content", () -> !listed.isDone());
            assertEquals("beta", configs.get(key).content());
            assertEquals(null, configs.getBeta(key));
        }
    }
}
