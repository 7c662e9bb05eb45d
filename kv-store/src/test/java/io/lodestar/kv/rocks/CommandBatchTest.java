package io.lodestar.kv.rocks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Commands of one batch see each other, take a revision each when they change something, and commit together. */
class CommandBatchTest {
    private static final String KS = "ks";

    @TempDir
    Path tmp;

    private RocksEngine open() {
        return RocksEngine.open(tmp.resolve("db"), Set.of(KS), 8L << 20);
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void aCommandSeesItsPredecessorsAndAllCommitWithTheAppliedIndex() {
        try (RocksEngine engine = open()) {
            try (CommandBatch batch = new CommandBatch(engine)) {
                assertTrue(batch.apply(Command.put(KS, b("k"), b("v1"))).succeeded());
                // compares against the staged, uncommitted write of the command before
                assertTrue(batch.apply(Command.putIfRevision(KS, b("k"), b("v2"), 1))
                        .succeeded());
                assertFalse(
                        batch.apply(Command.putIfRevision(KS, b("k"), b("v3"), 1))
                                .succeeded(),
                        "a failed compare");
                assertEquals(2, batch.revision());
                assertEquals(2, batch.events().size());
                assertNull(engine.get(KS, b("k")), "nothing is visible before the commit");
                batch.commit(7);
            }
            assertEquals("v2", new String(engine.get(KS, b("k")).value(), UTF_8));
            assertEquals(1, engine.get(KS, b("k")).createRevision());
            assertEquals(7, engine.appliedIndex());
            assertEquals(2, engine.revision());
        }
    }

    @Test
    void aCommandThatThrowsLeavesNothingStaged() {
        try (RocksEngine engine = open()) {
            try (CommandBatch batch = new CommandBatch(engine)) {
                assertTrue(batch.apply(Command.put(KS, b("before"), b("x"))).succeeded());
                Command broken = Command.of(
                        List.of(), List.of(Op.put(KS, b("half"), b("x")), Op.put("no-such-keyspace", b("k"), b("x"))));
                assertThrows(RuntimeException.class, () -> batch.apply(broken));
                assertEquals(1, batch.revision());
                assertEquals(1, batch.events().size(), "only the first command's event");
                batch.commit(2);
            }
            assertEquals("x", new String(engine.get(KS, b("before")).value(), UTF_8));
            assertNull(engine.get(KS, b("half")), "the broken command's first op was rolled back");
        }
    }

    @Test
    void deletingAnAbsentKeyChangesNothing() {
        try (RocksEngine engine = open();
                CommandBatch batch = new CommandBatch(engine)) {
            assertTrue(batch.apply(Command.delete(KS, b("absent"))).succeeded());
            assertEquals(0, batch.revision());
            assertTrue(batch.events().isEmpty());
            assertTrue(batch.apply(Command.of(List.of(Compare.modRevision(KS, b("absent"), 0)), List.of()))
                    .succeeded());
        }
    }
}
