package io.lodestar.config.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.error.Failures;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configs quota of a namespace: a publish that would create one more config than it allows is
 * refused naming the limit, with nothing written (no config, no history entry, no change); a
 * publish that replaces a config never is; a delete frees room; other namespaces are not touched.
 */
class ConfigQuotaTest {
    private static final long WAIT_S = 30;
    private static final long QUOTA = 3;

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static ConfigService configs;

    @BeforeAll
    static void start() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES, QUOTA);
    }

    @AfterAll
    static void stop() {
        store.close();
    }

    private static ConfigKey key(String tenant, String dataId) {
        return new ConfigKey(tenant, "G", dataId);
    }

    private static PublishRequest request(ConfigKey key, String content) {
        return new PublishRequest(key, content, null, null, null, null, "10.0.0.1", "test");
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_S, TimeUnit.SECONDS);
    }

    private static LimitExceededException refused(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(f));
        return assertInstanceOf(LimitExceededException.class, Failures.cause(e));
    }

    private static void fill(String tenant) throws Exception {
        for (int i = 0; i < QUOTA; i++) {
            await(configs.publish(request(key(tenant, "d" + i), "v")));
        }
    }

    @Test
    void aNewConfigPastTheQuotaIsRefusedNamingItAndNothingIsWritten() throws Exception {
        fill("full");
        long revision = store.revision();

        LimitExceededException e = refused(configs.publish(request(key("full", "one-more"), "v")));

        assertEquals(ConfigService.CONFIGS_PER_NAMESPACE_LIMIT, e.limit());
        assertTrue(e.getMessage().contains("namespace 'full'"), e.getMessage());
        assertTrue(e.getMessage().contains("(3)"), e.getMessage());
        assertNull(configs.get(key("full", "one-more")));
        assertEquals(0, configs.history().list(key("full", "one-more"), 1, 10).totalCount(), "no history entry");
        assertEquals(revision, store.revision(), "no revision taken: no change for any listener");
    }

    @Test
    void replacingAConfigAtTheQuotaIsAPublishLikeAnyOther() throws Exception {
        fill("replace");
        await(configs.publish(request(key("replace", "d0"), "v2")));
        assertEquals("v2", configs.get(key("replace", "d0")).content());
    }

    @Test
    void aDeleteFreesRoomAndOtherNamespacesKeepTheirs() throws Exception {
        fill("freed");
        await(configs.publish(request(key("elsewhere", "d0"), "v")));
        await(configs.publish(request(key("", "in-public"), "v")));

        await(configs.delete(key("freed", "d1"), "10.0.0.1", "test"));
        await(configs.publish(request(key("freed", "d3"), "v")));
        assertEquals("v", configs.get(key("freed", "d3")).content());
        refused(configs.publish(request(key("freed", "d4"), "v")));
    }

    @Test
    void promotingTheBetaOfANewConfigCountsAsCreatingIt() throws Exception {
        fill("promote");
        await(configs.publishBeta(request(key("promote", "beta-only"), "b"), "10.0.0.9"));

        LimitExceededException e = refused(configs.promoteBeta(key("promote", "beta-only"), "10.0.0.1", "test"));

        assertEquals(ConfigService.CONFIGS_PER_NAMESPACE_LIMIT, e.limit());
        assertNull(configs.get(key("promote", "beta-only")));
        assertEquals("b", configs.getBeta(key("promote", "beta-only")).content(), "the beta stays");
    }
}
