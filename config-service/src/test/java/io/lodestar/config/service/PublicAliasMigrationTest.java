package io.lodestar.config.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configs an older version stored under the literal tenant "public" (any case) become the public
 * namespace's, against a real one-node store.
 */
class PublicAliasMigrationTest {
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

    /** What an older version wrote for tenant {@code tenant}: the key as it was, the value as today's. */
    private void storeAsBefore(String keyspace, String tenant, String dataId, byte[] value) throws Exception {
        byte[] key = (tenant + '\0' + "G" + '\0' + dataId).getBytes(StandardCharsets.UTF_8);
        store.write(Command.of(List.of(), List.of(Op.put(keyspace, key, value))))
                .get(20, TimeUnit.SECONDS);
    }

    private static byte[] config(String content) {
        ConfigKey any = new ConfigKey("", "G", "x");
        return ConfigCodec.encode(
                new PublishRequest(any, content, "yaml", "app", null, null, "10.0.0.1", null),
                ContentMd5.of(content.getBytes(StandardCharsets.UTF_8)),
                1L,
                2L);
    }

    @Test
    void configsUnderAnySpellingOfTheAliasMoveToThePublicNamespaceWithHistory() throws Exception {
        storeAsBefore(ConfigKeyspaces.CONFIG, "public", "a", config("a: 1"));
        storeAsBefore(ConfigKeyspaces.CONFIG, "PUBLIC", "b", config("b: 1"));
        storeAsBefore(ConfigKeyspaces.CONFIG, "publicity", "c", config("c: 1")); // another namespace
        ConfigKey a = new ConfigKey("", "G", "a");
        assertNull(configs.get(a), "unreachable before the migration");

        try (PublicAliasMigration migration = new PublicAliasMigration(store)) {
            assertEquals(2, migration.runOnce());
            assertEquals(0, migration.runOnce(), "nothing left to move");
        }

        Config moved = configs.get(a);
        assertNotNull(moved);
        assertEquals("a: 1", moved.content());
        assertEquals("yaml", moved.type());
        assertEquals("b: 1", configs.get(new ConfigKey("", "G", "b")).content());
        assertEquals("c: 1", configs.get(new ConfigKey("publicity", "G", "c")).content());
        List<HistoryEntry> history = configs.history().list(a, 1, 10).items();
        assertEquals(1, history.size());
        assertEquals(HistoryEntry.Operation.INSERT, history.get(0).operation());
        assertEquals(PublicAliasMigration.SOURCE, history.get(0).srcUser());
        assertTrue(
                store.scan(ConfigKeyspaces.CONFIG, ConfigKey.tenantPrefix("public"), 10)
                        .isEmpty(),
                "the old key is gone");
    }

    @Test
    void aConfigThePublicNamespaceAlsoHasStaysWhereItIsAndNothingIsOverwritten() throws Exception {
        ConfigKey key = new ConfigKey("", "G", "both");
        configs.publish(new PublishRequest(key, "current", null, null, null, null, null, null))
                .get(20, TimeUnit.SECONDS);
        storeAsBefore(ConfigKeyspaces.CONFIG, "public", "both", config("older"));
        storeAsBefore(ConfigKeyspaces.BETA, "Public", "gray", betaOf("gray: 1"));

        try (PublicAliasMigration migration = new PublicAliasMigration(store)) {
            assertEquals(1, migration.runOnce(), "only the gray release moves");
        }

        assertEquals("current", configs.get(key).content());
        assertEquals(
                1,
                store.scan(ConfigKeyspaces.CONFIG, ConfigKey.tenantPrefix("public"), 10)
                        .size(),
                "the conflicting config is kept for the operator");
        assertEquals("gray: 1", configs.getBeta(new ConfigKey("", "G", "gray")).content());
    }

    private static byte[] betaOf(String content) {
        return BetaCodec.encode(
                content,
                ContentMd5.of(content.getBytes(StandardCharsets.UTF_8)),
                List.of("10.0.0.9"),
                "10.0.0.1",
                null,
                1L,
                2L);
    }

    @Test
    void everyCaseSpellingIsCovered() {
        List<String> spellings = PublicAliasMigration.spellings("public");
        assertEquals(64, spellings.size());
        assertTrue(spellings.containsAll(List.of("public", "PUBLIC", "Public", "pUbLiC")));
    }
}
