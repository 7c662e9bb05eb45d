package io.lodestar.config.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ContentMd5;
import io.lodestar.config.PublishRequest;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented content limit (10 MiB) is the limit a user meets: a config at it publishes, as a
 * beta too, and can be promoted and rolled back (each writes the content twice in one command: the
 * config and its history entry); one byte over is refused naming {@code content} and the limit.
 */
class ConfigSizeLimitTest {
    private static final int LIMIT = ConfigService.DEFAULT_MAX_CONTENT_BYTES;

    @TempDir
    Path dir;

    RaftKvStore store;
    ConfigService configs;

    @BeforeEach
    void start() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, LIMIT);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private static PublishRequest publish(ConfigKey key, String content) {
        return new PublishRequest(key, content, null, null, null, null, "127.0.0.1", null);
    }

    @Test
    void aConfigAtTheLimitPublishesPromotesAndRollsBack() throws Exception {
        ConfigKey key = new ConfigKey("", "DEFAULT_GROUP", "big");
        String first = "a".repeat(LIMIT);
        String second = "b".repeat(LIMIT);
        configs.publish(publish(key, first)).get(30, TimeUnit.SECONDS);
        assertEquals(first, configs.get(key).content());

        configs.publishBeta(publish(key, second), "127.0.0.2").get(30, TimeUnit.SECONDS);
        configs.promoteBeta(key, "127.0.0.1", null).get(30, TimeUnit.SECONDS);
        assertEquals(second, configs.get(key).content());

        String firstMd5 = ContentMd5.of(first);
        long firstId = configs.history().list(key, 1, 10).items().stream()
                .filter(h -> h.md5().equals(firstMd5))
                .findFirst()
                .orElseThrow()
                .id();
        configs.rollback(key, firstId, "127.0.0.1", null).get(30, TimeUnit.SECONDS);
        assertEquals(first, configs.get(key).content());
    }

    @Test
    void oneByteOverIsRefusedNamingContentAndTheLimit() {
        ConfigKey key = new ConfigKey("", "DEFAULT_GROUP", "too-big");
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> configs.publish(publish(key, "a".repeat(LIMIT + 1))));
        assertEquals("content", e.field());
        assertTrue(e.getMessage().contains("10 MiB"), e.getMessage());
        assertEquals(null, configs.get(key));
    }
}
