package io.lodestar.config.history;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** History retention against a real one-node store: the count rule, the age rule, batches, idempotence. */
class HistoryRetentionTest {
    @TempDir
    Path dir;

    RaftKvStore store;
    ConfigService configs;

    @BeforeEach
    void startStore() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    private void publish(ConfigKey key, String content) throws Exception {
        configs.publish(new PublishRequest(key, content, null, null, null, null, null, null))
                .get(20, TimeUnit.SECONDS);
    }

    private List<Long> ids(ConfigKey key) {
        return configs.history().list(key, 1, 1000).items().stream()
                .map(HistoryEntry::id)
                .toList();
    }

    @Test
    void countRuleKeepsTheNewestEntriesOfEachConfigInIdempotentBatches() throws Exception {
        ConfigKey a = new ConfigKey("", "G", "a");
        ConfigKey b = new ConfigKey("ns", "G", "b");
        ConfigKey ab = new ConfigKey("", "G", "a.b"); // a neighbour whose key extends a's
        for (int i = 0; i < 6; i++) {
            publish(a, "a" + i);
        }
        publish(b, "b0");
        publish(b, "b1");
        for (int i = 0; i < 4; i++) {
            publish(ab, "ab" + i);
        }
        List<Long> newestA = ids(a).subList(0, 3);
        List<Long> newestAb = ids(ab).subList(0, 3);
        HistoryRetention retention = new HistoryRetention(
                store,
                new HistoryRetention.Settings(Duration.ofDays(30), 3, Duration.ofHours(1), 2),
                Clock.systemUTC());

        assertEquals(4, retention.runOnce()); // 3 of a, 1 of a.b, in batches of 2
        assertEquals(newestA, ids(a));
        assertEquals(newestAb, ids(ab));
        assertEquals(2, ids(b).size());
        long revision = store.revision();
        assertEquals(0, retention.runOnce());
        assertEquals(revision, store.revision(), "a pass with nothing to trim proposes nothing");
    }

    @Test
    void ageRuleDeletesEntriesOlderThanTheMaxAge() throws Exception {
        ConfigKey c = new ConfigKey("", "G", "c");
        ConfigKey d = new ConfigKey("", "G", "d");
        publish(c, "c0");
        publish(c, "c1");
        publish(d, "d0");
        // entries are stamped with the wall clock in ms: the boundary falls strictly between them
        long lastOld = System.currentTimeMillis();
        Await.until("the clock past the older entries", () -> System.currentTimeMillis() > lastOld);
        long boundary = System.currentTimeMillis();
        Await.until("the clock past the boundary", () -> System.currentTimeMillis() > boundary);
        publish(c, "c2");
        List<Long> keptC = ids(c).subList(0, 1);
        Duration maxAge = Duration.ofDays(30);
        Clock atBoundaryPlusMaxAge = Clock.fixed(Instant.ofEpochMilli(boundary).plus(maxAge), ZoneOffset.UTC);
        HistoryRetention retention = new HistoryRetention(
                store, new HistoryRetention.Settings(maxAge, 1000, Duration.ofHours(1), 500), atBoundaryPlusMaxAge);

        assertEquals(3, retention.runOnce());
        assertEquals(keptC, ids(c));
        assertEquals(List.of(), ids(d));
        assertEquals("c2", configs.get(c).content(), "retention touches history only");
        assertEquals("d0", configs.get(d).content());
    }

    @Test
    void anEntryThisVersionCannotReadIsKeptByTheAgeRuleAndStillCounted() throws Exception {
        ConfigKey f = new ConfigKey("", "G", "f");
        store.write(Command.batch(List.of(Op.putAtRevision(
                        ConfigKeyspaces.HISTORY, ConfigHistory.prefix(f), new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0, 0}))))
                .get(20, TimeUnit.SECONDS);
        publish(f, "f0");
        Clock farFuture = Clock.fixed(Instant.now().plus(Duration.ofDays(365)), ZoneOffset.UTC);
        HistoryRetention byAge = new HistoryRetention(
                store, new HistoryRetention.Settings(Duration.ofDays(30), 1000, Duration.ofHours(1), 500), farFuture);
        assertEquals(1, byAge.runOnce(), "only the readable entry is old enough to go");
        assertEquals(
                1,
                store.scan(ConfigKeyspaces.HISTORY, ConfigHistory.prefix(f), 10).size());

        publish(f, "f1");
        var before = store.scan(ConfigKeyspaces.HISTORY, ConfigHistory.prefix(f), 10);
        HistoryRetention byCount = new HistoryRetention(
                store,
                new HistoryRetention.Settings(Duration.ofDays(30), 1, Duration.ofHours(1), 500),
                Clock.systemUTC());
        assertEquals(1, byCount.runOnce(), "the unreadable entry is the oldest, over the count of one");
        var after = store.scan(ConfigKeyspaces.HISTORY, ConfigHistory.prefix(f), 10);
        assertEquals(1, after.size());
        assertArrayEquals(before.get(before.size() - 1).key(), after.get(0).key(), "the newest entry is kept");
    }

    @Test
    void scheduledRunsTrimWithoutBeingCalled() throws Exception {
        ConfigKey e = new ConfigKey("", "G", "e");
        for (int i = 0; i < 5; i++) {
            publish(e, "e" + i);
        }
        try (HistoryRetention retention = new HistoryRetention(
                        store,
                        new HistoryRetention.Settings(Duration.ofDays(30), 2, Duration.ofMillis(50), 500),
                        Clock.systemUTC())
                .start()) {
            Await.until("trimmed to the newest two", () -> ids(e).size() == 2, () -> ids(e));
        }
    }
}
