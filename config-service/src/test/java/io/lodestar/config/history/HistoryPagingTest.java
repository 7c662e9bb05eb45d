package io.lodestar.config.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.service.ConfigService;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A history longer than one batch of the store walk pages newest first, and finds each entry's predecessor. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HistoryPagingTest {
    private static final int VERSIONS = 150; // more than two batches of the walk
    private static final ConfigKey KEY = new ConfigKey("", "G", "long-lived");

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static ConfigHistory history;
    static final List<Long> revisions = new ArrayList<>();

    @BeforeAll
    static void publish() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        ConfigService configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
        for (int i = 1; i <= VERSIONS; i++) {
            revisions.add(configs.publish(new PublishRequest(KEY, "v" + i, null, null, null, null, null, null))
                    .get(10, TimeUnit.SECONDS));
        }
        configs.publish(new PublishRequest(
                        new ConfigKey("", "G", "long-lived2"), "other", null, null, null, null, null, null))
                .get(10, TimeUnit.SECONDS);
        history = new ConfigHistory(store);
    }

    @AfterAll
    static void stop() {
        store.close();
    }

    /**
     * What the entry of the {@code k}-th publish (from 0) holds: as in Nacos, an update records the
     * content it replaced, the first publish its own.
     */
    private static String content(int k) {
        return k == 0 ? "v1" : "v" + k;
    }

    @Test
    void pagesAreNewestFirstAcrossTheWalksBatches() {
        ConfigHistory.Page first = history.list(KEY, 1, 10);
        assertEquals(VERSIONS, first.totalCount());
        assertEquals(15, first.pagesAvailable());
        assertEquals(content(VERSIONS - 1), first.items().get(0).content());
        assertEquals(revisions.get(VERSIONS - 1), first.items().get(0).id());
        assertEquals(content(VERSIONS - 10), first.items().get(9).content());
        List<String> all = new ArrayList<>();
        for (int page = 1; page <= 3; page++) {
            history.list(KEY, page, 60).items().forEach(e -> all.add(e.content()));
        }
        assertEquals(VERSIONS, all.size());
        for (int i = 0; i < VERSIONS; i++) {
            assertEquals(content(VERSIONS - 1 - i), all.get(i), "entry " + i);
        }
        assertEquals(List.of(), history.list(KEY, 4, 60).items(), "past the end");
    }

    @Test
    void previousIsTheEntryJustBefore() {
        for (int i : new int[] {1, 63, 64, 65, 129, 149}) {
            HistoryEntry before = history.previous(KEY, revisions.get(i));
            assertEquals(revisions.get(i - 1), before.id(), "before the entry of publish " + i);
            assertEquals(content(i - 1), before.content());
        }
        assertNull(history.previous(KEY, revisions.get(0)), "nothing before the first");
    }
}
