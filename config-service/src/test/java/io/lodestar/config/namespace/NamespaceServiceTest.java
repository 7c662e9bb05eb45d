package io.lodestar.config.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.LaggingReplica;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** NamespaceService against a real one-node Raft store on RocksDB. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NamespaceServiceTest {
    @TempDir
    static Path dir;

    static RaftKvStore store;
    static NamespaceService namespaces;
    static ConfigService configs;

    @BeforeAll
    static void startStore() throws Exception {
        store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED);
        namespaces = new NamespaceService(store);
        configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
    }

    @AfterAll
    static void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    static void publish(String tenant, String dataId) throws Exception {
        await(configs.publish(
                new PublishRequest(new ConfigKey(tenant, "G", dataId), "c", null, null, null, null, null, null)));
    }

    static NamespaceUsage find(String id) {
        return namespaces.list().stream()
                .filter(u -> u.namespace().id().equals(id))
                .findFirst()
                .orElse(null);
    }

    @Test
    void createStoresTheNamespaceAndADuplicateIdIsRefusedWithoutOverwriting() throws Exception {
        assertTrue(await(namespaces.create("dup-1", "first", "the first")));
        assertFalse(await(namespaces.create("dup-1", "second", "the second")), "duplicate id");
        NamespaceUsage u = namespaces.get("dup-1");
        assertEquals("first", u.namespace().name());
        assertEquals("the first", u.namespace().desc());
        assertTrue(u.namespace().createTime() > 0);
        assertTrue(namespaces.exists("dup-1"));
        assertFalse(namespaces.exists("never-created"));
        assertFalse(namespaces.exists(""), "the public namespace is not a created one");
    }

    @Test
    void aDuplicateCreateWritesNothing() throws Exception {
        assertTrue(await(namespaces.create("dup-2", "n", null)));
        long revision = store.revision();
        assertFalse(await(namespaces.create("dup-2", "n", null)));
        assertEquals(revision, store.revision());
    }

    @Test
    void aBlankIdGetsAGeneratedUuidAndAnIdIsTrimmed() throws Exception {
        int before = namespaces.list().size();
        assertTrue(await(namespaces.create("  ", "generated", null)));
        assertTrue(await(namespaces.create(" trimmed ", "t", null)));
        List<NamespaceUsage> after = namespaces.list();
        assertEquals(before + 2, after.size());
        assertTrue(after.stream()
                .anyMatch(u -> u.namespace().name().equals("generated")
                        && u.namespace().id().matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")));
        assertNotNull(namespaces.get("trimmed"));
    }

    @Test
    void listStartsWithPublicAndCountsConfigsPerNamespace() throws Exception {
        assertTrue(await(namespaces.create("count-a", "A", null)));
        assertTrue(await(namespaces.create("count-b", "B", null)));
        long publicBefore = namespaces.get("").configCount();
        publish("count-a", "one");
        publish("count-a", "two");
        publish("count-a", "two"); // an update is not a second config
        publish("count-ab", "other"); // a tenant sharing a prefix is not counted in count-a
        publish("", "in-public");

        List<NamespaceUsage> list = namespaces.list();
        assertEquals(Namespace.PUBLIC, list.get(0).namespace());
        assertEquals(publicBefore + 1, list.get(0).configCount());
        assertEquals(2, find("count-a").configCount());
        assertEquals(0, find("count-b").configCount());
        assertEquals(2, namespaces.get("count-a").configCount());
        assertEquals(
                namespaces.get("").configCount(),
                namespaces.get("public").configCount(),
                "'public' is the public namespace");
        assertTrue(list.indexOf(find("count-a")) < list.indexOf(find("count-b")), "creation order");
    }

    @Test
    void getOfAnUnknownIdIsNull() {
        assertNull(namespaces.get("no-such-namespace"));
        assertEquals(Namespace.PUBLIC, namespaces.get(null).namespace());
    }

    @Test
    void updateReplacesNameAndDescAndKeepsCreateTime() throws Exception {
        assertTrue(await(namespaces.create("upd", "old", "old desc")));
        long created = namespaces.get("upd").namespace().createTime();
        assertTrue(await(namespaces.update("upd", "new", null)));
        Namespace ns = namespaces.get("upd").namespace();
        assertEquals("new", ns.name());
        assertNull(ns.desc());
        assertEquals(created, ns.createTime());
    }

    @Test
    void updateOfAnUnknownIdAnswersFalseAndCreatesNothing() throws Exception {
        long revision = store.revision();
        assertFalse(await(namespaces.update("upd-unknown", "n", null)));
        assertNull(namespaces.get("upd-unknown"));
        assertEquals(revision, store.revision());
    }

    @Test
    void anEmptyNamespaceIsDeleted() throws Exception {
        assertTrue(await(namespaces.create("del-empty", "d", null)));
        assertTrue(await(namespaces.delete("del-empty")));
        assertNull(namespaces.get("del-empty"));
        assertNull(find("del-empty"));
        assertTrue(await(namespaces.create("del-empty", "again", null)), "the id is free again");
    }

    @Test
    void deletingAnUnknownIdAnswersTrueAndWritesNothing() throws Exception {
        long revision = store.revision();
        assertTrue(await(namespaces.delete("del-unknown")));
        assertEquals(revision, store.revision());
    }

    @Test
    void aNamespaceHoldingConfigsIsNotDeletedUntilTheyAreGone() throws Exception {
        assertTrue(await(namespaces.create("del-full", "d", null)));
        publish("del-full", "x");
        publish("del-full", "y");
        long revision = store.revision();
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(namespaces.delete("del-full")));
        NamespaceNotEmptyException notEmpty = assertInstanceOf(NamespaceNotEmptyException.class, e.getCause());
        assertEquals(2, notEmpty.configCount());
        assertTrue(notEmpty.getMessage().contains("2 configs"), notEmpty.getMessage());
        assertEquals(revision, store.revision(), "a refused delete writes nothing");
        assertNotNull(namespaces.get("del-full"));

        await(configs.delete(new ConfigKey("del-full", "G", "x"), null, null));
        await(configs.delete(new ConfigKey("del-full", "G", "y"), null, null));
        assertTrue(await(namespaces.delete("del-full")));
        assertNull(namespaces.get("del-full"));
    }

    @Test
    void editsAndDeletesOnANodeThatHasNotAppliedTheLatestWritesCatchUpFirst() throws Exception {
        LaggingReplica follower = new LaggingReplica(store);
        NamespaceService onFollower = new NamespaceService(follower);
        long before = store.revision();
        assertTrue(await(namespaces.create("lag-edit", "old", null)));
        assertTrue(await(namespaces.create("lag-full", "full", null)));
        publish("lag-full", "x");

        // created through another node: committed, not applied on this one yet
        follower.lagBehind(before);
        assertTrue(await(onFollower.update("lag-edit", "new", null)), "the edit finds the namespace");
        assertEquals("new", namespaces.get("lag-edit").namespace().name());
        follower.lagBehind(before);
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(onFollower.delete("lag-full")));
        assertInstanceOf(NamespaceNotEmptyException.class, e.getCause(), "the delete sees the config in it");
        follower.lagBehind(before);
        assertTrue(await(onFollower.delete("lag-edit")));
        assertNull(namespaces.get("lag-edit"), "deleted, not answered true for a namespace this node had not seen");
        assertEquals(3, follower.catchUps());
    }

    @Test
    void thePublicNamespaceCannotBeEditedOrDeleted() {
        for (String id : new String[] {"", " ", "public"}) {
            assertEquals(
                    "namespaceId",
                    assertThrows(InvalidRequestException.class, () -> namespaces.delete(id))
                            .field());
            assertEquals(
                    "namespace",
                    assertThrows(InvalidRequestException.class, () -> namespaces.update(id, "n", null))
                            .field());
        }
        assertEquals(
                "namespaceId",
                assertThrows(InvalidRequestException.class, () -> namespaces.delete(null))
                        .field());
        assertEquals(Namespace.PUBLIC, namespaces.list().get(0).namespace());
    }

    record Bad(String why, Executable call, String field) {}

    @Test
    void badInputIsRejectedNamingTheFieldAndWritesNothing() throws Exception {
        assertTrue(await(namespaces.create("valid-for-update", "n", null)));
        long revision = store.revision();
        List<Bad> cases = List.of(
                new Bad("space in id", () -> namespaces.create("a b", "n", null), "customNamespaceId"),
                new Bad("dot in id", () -> namespaces.create("a.b", "n", null), "customNamespaceId"),
                new Bad("slash in id", () -> namespaces.create("a/b", "n", null), "customNamespaceId"),
                new Bad("non-ASCII letter in id", () -> namespaces.create("näm", "n", null), "customNamespaceId"),
                new Bad("id of 129", () -> namespaces.create("i".repeat(129), "n", null), "customNamespaceId"),
                new Bad("reserved id", () -> namespaces.create("public", "n", null), "customNamespaceId"),
                new Bad("missing name", () -> namespaces.create("ok-id", null, null), "namespaceName"),
                new Bad("blank name", () -> namespaces.create("ok-id", "  ", null), "namespaceName"),
                new Bad("name of 129", () -> namespaces.create("ok-id", "n".repeat(129), null), "namespaceName"),
                new Bad("control char in name", () -> namespaces.create("ok-id", "a\u0001", null), "namespaceName"),
                new Bad("'@' in name", () -> namespaces.create("ok-id", "a@b", null), "namespaceName"),
                new Bad("'&' in name", () -> namespaces.create("ok-id", "a&b", null), "namespaceName"),
                new Bad("desc of 257", () -> namespaces.create("ok-id", "n", "d".repeat(257)), "namespaceDesc"),
                new Bad(
                        "update: blank name",
                        () -> namespaces.update("valid-for-update", " ", null),
                        "namespaceShowName"),
                new Bad(
                        "update: '%' in name",
                        () -> namespaces.update("valid-for-update", "5%", null), "namespaceShowName"),
                new Bad(
                        "update: desc of 257",
                        () -> namespaces.update("valid-for-update", "n", "d".repeat(257)),
                        "namespaceDesc"),
                new Bad("update: missing id", () -> namespaces.update(null, "n", null), "namespace"));
        for (Bad c : cases) {
            InvalidRequestException e = assertThrows(InvalidRequestException.class, c.call, c.why);
            assertEquals(c.field, e.field(), c.why + ": " + e.getMessage());
        }
        assertEquals(revision, store.revision(), "no bad request wrote anything");
        assertNull(namespaces.get("ok-id"));
        // The limits themselves are accepted.
        assertTrue(await(namespaces.create("i".repeat(128), "n".repeat(128), "d".repeat(256))));
        assertTrue(await(namespaces.create("Az09-_", "Prod (EU) — 生产", null)));
    }
}
