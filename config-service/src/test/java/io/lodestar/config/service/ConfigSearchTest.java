package io.lodestar.config.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Search over a namespace larger than one batch of the store walk: totals, order and pages are
 * those of the whole namespace, and the tag and appName filters hold across batches.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConfigSearchTest {
    private static final int CONFIGS = 700; // more than two batches of the walk

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static ConfigSearch search;

    @BeforeAll
    static void fill() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        ConfigService configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
        List<CompletableFuture<Long>> writes = new ArrayList<>();
        for (int i = 0; i < CONFIGS; i++) {
            String tags = i % 3 == 0 ? "third" : null;
            String app = i % 7 == 0 ? "seventh" : null;
            // groups before dataIds in the store's order, the other way round in the answer's
            writes.add(configs.publish(new PublishRequest(
                    new ConfigKey("ns", "g" + (i % 2), String.format("d%04d", i)),
                    "v" + i,
                    null,
                    app,
                    null,
                    tags,
                    null,
                    null)));
        }
        writes.add(configs.publish(
                new PublishRequest(new ConfigKey("other", "g0", "d0000"), "x", null, null, null, "third", null, null)));
        for (CompletableFuture<Long> w : writes) {
            w.get(30, TimeUnit.SECONDS);
        }
        search = new ConfigSearch(store);
    }

    @AfterAll
    static void stop() {
        store.close();
    }

    private static ConfigSearch.Query query(
            ConfigSearch.Mode mode, String dataId, String group, String appName, List<String> tags) {
        return new ConfigSearch.Query(mode, "ns", dataId, group, appName, tags);
    }

    @Test
    void everyConfigOfTheNamespaceIsFoundInOrderAcrossPages() {
        ConfigSearch.Query all = query(ConfigSearch.Mode.BLUR, "*", null, null, List.of());
        List<String> seen = new ArrayList<>();
        for (int page = 1; page <= 2; page++) {
            ConfigSearch.Page p = search.search(all, page, 500);
            assertEquals(CONFIGS, p.totalCount());
            assertEquals(2, p.pagesAvailable());
            p.items().forEach(c -> seen.add(c.key().dataId()));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < CONFIGS; i++) {
            expected.add(String.format("d%04d", i));
        }
        assertEquals(expected, seen, "ordered by dataId over both groups, each once");
        Config last = search.search(all, 2, 500).items().get(199);
        assertEquals("v699", last.content(), "a page's configs carry their content");
    }

    @Test
    void filtersByTagsAndAppNameHoldAcrossTheWalk() {
        assertEquals(
                (CONFIGS + 2) / 3,
                search.search(query(ConfigSearch.Mode.ACCURATE, null, null, null, List.of("third")), 1, 10)
                        .totalCount(),
                "tags alone, no appName");
        assertEquals(
                (CONFIGS + 6) / 7,
                search.search(query(ConfigSearch.Mode.ACCURATE, null, null, "seventh", List.of()), 1, 10)
                        .totalCount());
        assertEquals(
                (CONFIGS + 20) / 21,
                search.search(query(ConfigSearch.Mode.ACCURATE, null, null, "seventh", List.of("third")), 1, 10)
                        .totalCount());
        assertEquals(
                CONFIGS / 2,
                search.search(query(ConfigSearch.Mode.ACCURATE, null, "g1", null, List.of()), 1, 10)
                        .totalCount());
        ConfigSearch.Page one = search.search(query(ConfigSearch.Mode.ACCURATE, "d0350", null, null, List.of()), 1, 10);
        assertEquals(1, one.totalCount());
        assertEquals("v350", one.items().get(0).content());
    }
}
