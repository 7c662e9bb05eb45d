package io.lodestar.config.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.config.ConfigConflictException;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** ConfigService's read-modify-writes against a real one-node store: compare-and-set, refusals, racing writers. */
class ConfigServiceWritesTest {
    private static final long WAIT_S = 30;

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static ConfigService configs;

    @BeforeAll
    static void start() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
    }

    @AfterAll
    static void stop() {
        store.close();
    }

    @Test
    void aCompareAndSetPublishAgainstTheStoredMd5Publishes(TestInfo info) throws Exception {
        ConfigKey key = key(info);
        configs.publish(request(key, "v1")).get(WAIT_S, TimeUnit.SECONDS);
        configs.publish(request(key, "v2"), ContentMd5.of("v1")).get(WAIT_S, TimeUnit.SECONDS);
        assertEquals("v2", configs.get(key).content());
    }

    @Test
    void aCompareAndSetPublishAgainstAnotherMd5IsAConflictAndWritesNothing(TestInfo info) throws Exception {
        ConfigKey key = key(info);
        configs.publish(request(key, "v1")).get(WAIT_S, TimeUnit.SECONDS);
        long revision = store.revision();
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> configs.publish(request(key, "v2"), ContentMd5.of("v0")).get(WAIT_S, TimeUnit.SECONDS));
        assertInstanceOf(ConfigConflictException.class, e.getCause());
        assertEquals("v1", configs.get(key).content());
        assertEquals(revision, store.revision());
    }

    @Test
    void promotingAConfigWithoutABetaFailsTheFutureOnDataId(TestInfo info) {
        CompletableFuture<Long> promoted = configs.promoteBeta(key(info), null, null);
        ExecutionException e = assertThrows(ExecutionException.class, () -> promoted.get(WAIT_S, TimeUnit.SECONDS));
        assertEquals(
                "dataId",
                assertInstanceOf(InvalidRequestException.class, e.getCause()).field());
    }

    @Test
    void racingPublishesOfOneConfigAllLandEachWithTheContentItReplacedInTheHistory(TestInfo info) throws Exception {
        ConfigKey key = key(info);
        int writers = 8;
        List<CompletableFuture<Long>> all = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            all.add(configs.publish(request(key, "v" + i)));
        }
        Set<Long> revisions = new HashSet<>();
        for (CompletableFuture<Long> f : all) {
            revisions.add(f.get(WAIT_S, TimeUnit.SECONDS));
        }
        assertEquals(writers, revisions.size(), "one commit each");
        List<HistoryEntry> history = configs.history().list(key, 1, 100).items();
        assertEquals(writers, history.size());
        assertEquals(
                1,
                history.stream()
                        .filter(h -> h.operation() == HistoryEntry.Operation.INSERT)
                        .count());
        List<String> replaced = history.stream()
                .filter(h -> h.operation() == HistoryEntry.Operation.UPDATE)
                .map(HistoryEntry::content)
                .toList();
        // a change computed from a stale read would replace a content another change already replaced
        assertEquals(writers - 1, new HashSet<>(replaced).size(), "each update replaced a different content");
        assertFalse(replaced.contains(configs.get(key).content()), "the last content replaced nothing yet");
    }

    private static ConfigKey key(TestInfo info) {
        return new ConfigKey("", "G", info.getTestMethod().orElseThrow().getName());
    }

    private static PublishRequest request(ConfigKey key, String content) {
        return new PublishRequest(key, content, null, null, null, null, null, null);
    }
}
