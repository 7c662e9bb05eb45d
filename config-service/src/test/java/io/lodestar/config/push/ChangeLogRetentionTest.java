package io.lodestar.config.push;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.changelog.ChangeLogRetention;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Change-log trimming, and resuming a push subscription from before the trimmed part, on a real store. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChangeLogRetentionTest {
    @TempDir
    Path dir;

    RaftKvStore store;
    ConfigService configs;
    ConfigChangeLog log;

    @BeforeEach
    void start() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
        log = new ConfigChangeLog(store);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private long publish(ConfigKey key, String content) throws Exception {
        return configs.publish(new PublishRequest(key, content, null, null, null, null, null, null))
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void keepsOnlyTheNewestEntriesAndRaisesTheFloorToTheLastTrimmed() throws Exception {
        List<Long> revisions = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            revisions.add(publish(new ConfigKey("", "G", "d" + i), "v" + i));
        }
        assertEquals(0, log.floor(), "nothing trimmed yet");
        assertTrue(log.complete(0));

        ChangeLogRetention retention =
                new ChangeLogRetention(store, new ChangeLogRetention.Settings(10, Duration.ofHours(1), 7));
        assertEquals(20, retention.runOnce(), "all but the newest 10, in batches of 7");
        assertEquals(
                revisions.subList(20, 30),
                log.after(0, 100).stream().map(ConfigChangeLog.Change::revision).toList());
        long floor = revisions.get(19);
        assertEquals(floor, log.floor());
        assertFalse(log.complete(floor - 1), "changes at or below the floor are gone");
        assertTrue(log.complete(floor));
        assertEquals(0, retention.runOnce(), "a second pass has nothing to do");
        assertEquals(floor, log.floor(), "the floor never goes down");
    }

    @Test
    void laterPassesCountOnlyWhatIsNewUnlessAnotherLeaderTrimmedInBetween() throws Exception {
        List<Long> revisions = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            revisions.add(publish(new ConfigKey("", "G", "a" + i), "v"));
        }
        ChangeLogRetention self =
                new ChangeLogRetention(store, new ChangeLogRetention.Settings(10, Duration.ofHours(1), 4));
        // another node's retention, as after two leader changes: it trims while this one's tally is old
        ChangeLogRetention other =
                new ChangeLogRetention(store, new ChangeLogRetention.Settings(10, Duration.ofHours(1), 4));
        assertEquals(20, self.runOnce());
        for (int i = 0; i < 5; i++) {
            revisions.add(publish(new ConfigKey("", "G", "b" + i), "v"));
        }
        assertEquals(5, self.runOnce(), "counted on from the last pass: 10 left + 5 new");
        for (int i = 0; i < 5; i++) {
            revisions.add(publish(new ConfigKey("", "G", "c" + i), "v"));
        }
        assertEquals(5, other.runOnce());
        for (int i = 0; i < 5; i++) {
            revisions.add(publish(new ConfigKey("", "G", "d" + i), "v"));
        }
        assertEquals(5, self.runOnce(), "the floor moved: counted again, not 10 + 5 + 5 from its own tally");
        assertEquals(
                revisions.subList(revisions.size() - 10, revisions.size()),
                log.after(0, 100).stream().map(ConfigChangeLog.Change::revision).toList());
        assertEquals(0, other.runOnce());
        assertEquals(0, self.runOnce());
    }

    @Test
    void aSubscriberResumingFromBeforeTheFloorGetsTheCurrentStateOfEachKey() throws Exception {
        ConfigKey unchanged = new ConfigKey("", "G", "unchanged");
        ConfigKey updated = new ConfigKey("", "G", "updated");
        ConfigKey removed = new ConfigKey("", "G", "removed");
        publish(unchanged, "same");
        long since = publish(updated, "old");
        publish(removed, "gone soon");
        long lastUpdate = publish(updated, "new");
        configs.delete(removed, null, null).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 5; i++) {
            publish(new ConfigKey("", "G", "filler" + i), "x");
        }
        new ChangeLogRetention(store, new ChangeLogRetention.Settings(1, Duration.ofHours(1), 100)).runOnce();
        assertFalse(log.complete(since));

        try (PushHub hub = new PushHub(store, configs)) {
            PushHubTest.Recorder session = new PushHubTest.Recorder();
            hub.subscribe(
                    session,
                    List.of(
                            new PushHub.Subscription(unchanged, null),
                            new PushHub.Subscription(updated, null),
                            new PushHub.Subscription(removed, null)),
                    since);
            session.awaitUntil("the acknowledgement", s -> s.all().stream().anyMatch(m -> m.startsWith("ack:")));
            Map<ConfigKey, ConfigChangeLog.Change> byKey =
                    session.notices().stream().collect(Collectors.toMap(ConfigChangeLog.Change::key, c -> c));
            assertEquals(2, byKey.size(), "no notice for the config unchanged since: " + session.all());
            assertEquals(lastUpdate, byKey.get(updated).revision());
            assertEquals(ContentMd5.of("new"), byKey.get(updated).md5());
            assertTrue(byKey.get(removed).deleted());
        }
    }
}
