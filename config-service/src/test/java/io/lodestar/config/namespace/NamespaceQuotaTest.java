package io.lodestar.config.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.error.Failures;
import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespaces quota: creating one more namespace than it allows is refused naming the limit,
 * nothing written; a duplicate id is still answered as one; deleting a namespace frees room.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NamespaceQuotaTest {
    @TempDir
    Path dir;

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    @Test
    void aNamespacePastTheQuotaIsRefusedNamingItUntilOneIsDeleted() throws Exception {
        try (RaftKvStore store = OneNodeStore.start(dir, ConfigKeyspaces.ALL, ConfigKeyspaces.COUNTED)) {
            NamespaceService namespaces = new NamespaceService(store, 2);
            assertTrue(await(namespaces.create("a", "A", null)));
            assertTrue(await(namespaces.create("b", "B", null)));

            ExecutionException e =
                    assertThrows(ExecutionException.class, () -> await(namespaces.create("c", "C", null)));
            LimitExceededException refused = assertInstanceOf(LimitExceededException.class, Failures.cause(e));
            assertEquals(NamespaceService.NAMESPACES_LIMIT, refused.limit());
            assertTrue(refused.getMessage().contains("(2)"), refused.getMessage());
            assertNull(namespaces.get("c"));
            assertEquals(3, namespaces.list().size(), "public, a and b");

            assertFalse(await(namespaces.create("a", "again", null)), "a duplicate id is a duplicate, full or not");

            assertTrue(await(namespaces.delete("b")));
            assertTrue(await(namespaces.create("c", "C", null)));
        }
    }
}
