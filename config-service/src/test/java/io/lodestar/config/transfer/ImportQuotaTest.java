package io.lodestar.config.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.namespace.NamespaceService;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.Failures;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An import against the configs quota: one that would pass it is refused whole, before any config
 * is written (those it would replace included); one that fits, or only replaces, is imported.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ImportQuotaTest {
    private static final long QUOTA = 5;

    @TempDir
    static Path dir;

    static RaftKvStore store;
    static ConfigService configs;
    static ConfigTransfer transfer;

    @BeforeAll
    static void start() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES, QUOTA);
        NamespaceService namespaces = new NamespaceService(store);
        for (String ns : new String[] {"over", "fits", "replaces"}) {
            await(namespaces.create(ns, ns, null));
        }
        transfer = new ConfigTransfer(store, configs, namespaces, ArchiveLimits.defaults());
    }

    @AfterAll
    static void stop() {
        store.close();
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static void publish(String tenant, String dataId, String content) throws Exception {
        await(configs.publish(
                new PublishRequest(new ConfigKey(tenant, "G", dataId), content, null, null, null, null, null, null)));
    }

    private static String content(String tenant, String dataId) {
        var c = configs.get(new ConfigKey(tenant, "G", dataId));
        return c == null ? null : c.content();
    }

    /** An archive of configs {@code d<from>..d<to-1>} in group G, each holding "imported". */
    private static byte[] archive(int from, int to) throws Exception {
        ByteArrayOutputStream zip = new ByteArrayOutputStream();
        ConfigArchive.Writer writer = new ConfigArchive.Writer(zip, true);
        for (int i = from; i < to; i++) {
            writer.add(new ArchivedConfig("G", "d" + i, "imported", "text", null, null));
        }
        writer.finish();
        return zip.toByteArray();
    }

    @Test
    void anImportThatWouldPassTheQuotaIsRefusedWholeWithNothingWritten() throws Exception {
        publish("over", "d0", "old");
        publish("over", "d1", "old");
        long revision = store.revision();

        // d0, d1 replaced and d2..d5 created: 6 configs where 5 fit
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> await(transfer.importArchive("over", archive(0, 6), ImportPolicy.OVERWRITE, "10.0.0.1", "t")));

        LimitExceededException refused = assertInstanceOf(LimitExceededException.class, Failures.cause(e));
        assertEquals(ConfigService.CONFIGS_PER_NAMESPACE_LIMIT, refused.limit());
        assertTrue(refused.getMessage().contains("no room for 4 more configs"), refused.getMessage());
        assertEquals(revision, store.revision(), "nothing written");
        assertEquals("old", content("over", "d0"));
        assertNull(content("over", "d2"));
    }

    @Test
    void anImportThatFitsIsImportedWhole() throws Exception {
        publish("fits", "d0", "old");

        ImportResult result =
                await(transfer.importArchive("fits", archive(0, 5), ImportPolicy.OVERWRITE, "10.0.0.1", "t"));

        assertEquals(5, result.succCount());
        for (int i = 0; i < 5; i++) {
            assertEquals("imported", content("fits", "d" + i));
        }
    }

    @Test
    void anImportThatOnlyReplacesIsImportedAtTheQuota() throws Exception {
        for (int i = 0; i < QUOTA; i++) {
            publish("replaces", "d" + i, "old");
        }

        ImportResult result =
                await(transfer.importArchive("replaces", archive(0, 5), ImportPolicy.OVERWRITE, "10.0.0.1", "t"));

        assertEquals(5, result.succCount());
        assertEquals("imported", content("replaces", "d4"));
    }
}
