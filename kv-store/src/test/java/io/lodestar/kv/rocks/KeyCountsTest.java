package io.lodestar.kv.rocks;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.count.CountRules;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store counts the keys of a counted keyspace by scope in the write that changes them: a put
 * that creates a key counts it, a replacing put does not, a delete of a key uncounts it; a put's cap
 * refuses its whole command when the scope is full; the counts outlive the engine and a store
 * written without them is counted when it opens.
 */
class KeyCountsTest {
    private static final String KS = "ks";
    private static final String LOG = "log";
    /** ks by the part before the first NUL, log as one scope. */
    private static final CountRules RULES = CountRules.of(Map.of(KS, 1, LOG, 0));

    private static final Cap TWO = Cap.of("test.per-tenant", 2, "the keys of tenant t");

    @TempDir
    Path tmp;

    private RocksEngine open(CountRules rules) {
        return RocksEngine.open(tmp.resolve("db"), Set.of(KS, LOG), rules, 8L << 20);
    }

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static byte[] key(String tenant, String name) {
        return b(tenant + "\0" + name);
    }

    private static long count(RocksEngine engine, String tenant) {
        return engine.countedKeys(KS, b(tenant + "\0"));
    }

    /** Applies the commands as one batch, committed at {@code index}; the outcomes in order. */
    private static List<CommandBatch.Outcome> apply(RocksEngine engine, long index, Command... commands) {
        try (CommandBatch batch = new CommandBatch(engine)) {
            List<CommandBatch.Outcome> outcomes =
                    List.of(commands).stream().map(batch::apply).toList();
            batch.commit(index);
            return outcomes;
        }
    }

    @Test
    void aCreatingPutCountsAReplacingPutDoesNotAndADeleteUncounts() {
        try (RocksEngine engine = open(RULES)) {
            apply(
                    engine,
                    1,
                    Command.put(KS, key("t", "a"), b("1")),
                    Command.put(KS, key("t", "b"), b("1")),
                    Command.put(KS, key("u", "a"), b("1")),
                    Command.put(KS, key("t", "a"), b("2")));
            assertEquals(2, count(engine, "t"));
            assertEquals(1, count(engine, "u"));
            assertEquals(3, engine.countedKeys(KS, new byte[0]), "the sum of every scope");

            apply(engine, 2, Command.delete(KS, key("t", "a")), Command.delete(KS, key("t", "absent")));
            assertEquals(1, count(engine, "t"));

            apply(engine, 3, Command.delete(KS, key("u", "a")));
            assertEquals(0, count(engine, "u"), "a scope emptied counts zero");
        }
    }

    @Test
    void aPutAtRevisionCountsAsANewKey() {
        try (RocksEngine engine = open(RULES)) {
            apply(engine, 1, Command.batch(List.of(Op.putAtRevision(LOG, b("p"), b("x")))));
            apply(engine, 2, Command.batch(List.of(Op.putAtRevision(LOG, b("p"), b("y")))));
            assertEquals(2, engine.countedKeys(LOG, new byte[0]));
        }
    }

    @Test
    void aCommandWhosePutFindsItsScopeFullWritesNothing() {
        try (RocksEngine engine = open(RULES)) {
            apply(engine, 1, Command.put(KS, key("t", "a"), b("1")), Command.put(KS, key("t", "b"), b("1")));
            long revision = engine.revision();

            Command third = Command.batch(List.of(
                    Op.put(KS, key("other", "x"), b("staged before the refusal")),
                    Op.delete(KS, key("t", "a")),
                    Op.put(KS, key("t", "a"), b("again")).withCap(TWO),
                    Op.put(KS, key("t", "c"), b("1")).withCap(TWO)));
            try (CommandBatch batch = new CommandBatch(engine)) {
                CommandBatch.Outcome refused = batch.apply(third);
                assertFalse(refused.succeeded());
                assertEquals(TWO, refused.overCap());
                assertTrue(batch.events().isEmpty(), "no change event of a refused command");
                assertEquals(revision, batch.revision());
                // the next command of the batch sees none of the refused one's staged writes
                assertTrue(batch.apply(Command.putIfRevision(KS, key("other", "x"), b("v"), 0))
                        .succeeded());
                batch.commit(2);
            }
            assertEquals("1", new String(engine.get(KS, key("t", "a")).value(), UTF_8), "the delete was undone");
            assertNull(engine.get(KS, key("t", "c")));
            assertEquals("v", new String(engine.get(KS, key("other", "x")).value(), UTF_8));
            assertEquals(2, count(engine, "t"));
            assertEquals(1, count(engine, "other"));
        }
    }

    @Test
    void aFullScopeStillTakesReplacingPutsAndADeleteFreesRoom() {
        try (RocksEngine engine = open(RULES)) {
            apply(
                    engine,
                    1,
                    Command.batch(List.of(Op.put(KS, key("t", "a"), b("1")).withCap(TWO))),
                    Command.batch(List.of(Op.put(KS, key("t", "b"), b("1")).withCap(TWO))));
            assertEquals(2, count(engine, "t"));

            CommandBatch.Outcome replace = apply(
                            engine,
                            2,
                            Command.batch(
                                    List.of(Op.put(KS, key("t", "a"), b("2")).withCap(TWO))))
                    .get(0);
            assertTrue(replace.succeeded(), "replacing a key at the cap");
            CommandBatch.Outcome another = apply(
                            engine,
                            3,
                            Command.batch(
                                    List.of(Op.put(KS, key("t", "c"), b("1")).withCap(TWO))))
                    .get(0);
            assertEquals(TWO, another.overCap());
            assertTrue(
                    apply(
                                    engine,
                                    4,
                                    Command.batch(List.of(
                                            Op.put(KS, key("u", "c"), b("1")).withCap(TWO))))
                            .get(0)
                            .succeeded(),
                    "other scopes have room");

            apply(engine, 5, Command.delete(KS, key("t", "b")));
            assertTrue(apply(
                            engine,
                            6,
                            Command.batch(
                                    List.of(Op.put(KS, key("t", "c"), b("1")).withCap(TWO))))
                    .get(0)
                    .succeeded());
            assertEquals(2, count(engine, "t"));
        }
    }

    @Test
    void roomForSeveralKeysIsAskedOfTheFirst() {
        try (RocksEngine engine = open(RULES)) {
            Cap five = Cap.of("test.per-tenant", 5, "the keys of tenant t");
            apply(engine, 1, Command.put(KS, key("t", "a"), b("1")), Command.put(KS, key("t", "b"), b("1")));

            Command fourMore =
                    Command.batch(List.of(Op.put(KS, key("t", "c"), b("1")).withCap(five.withRoom(4))));
            assertEquals(
                    five.withRoom(4).room(),
                    apply(engine, 2, fourMore).get(0).overCap().room());
            assertNull(engine.get(KS, key("t", "c")));

            Command threeMore =
                    Command.batch(List.of(Op.put(KS, key("t", "c"), b("1")).withCap(five.withRoom(3))));
            assertTrue(apply(engine, 3, threeMore).get(0).succeeded());
        }
    }

    @Test
    void aFailedCompareCountsNothing() {
        try (RocksEngine engine = open(RULES)) {
            apply(
                    engine,
                    1,
                    Command.of(
                            List.of(Compare.modRevision(KS, key("t", "guard"), 99)),
                            List.of(Op.put(KS, key("t", "a"), b("1")))));
            assertEquals(0, count(engine, "t"));
        }
    }

    @Test
    void countsOutliveTheEngine() {
        try (RocksEngine engine = open(RULES)) {
            apply(engine, 1, Command.put(KS, key("t", "a"), b("1")), Command.put(KS, key("t", "b"), b("1")));
        }
        try (RocksEngine engine = open(RULES)) {
            assertEquals(2, count(engine, "t"));
        }
    }

    @Test
    void aStoreWrittenWithoutCountsIsCountedWhenOpenedWithThem() {
        try (RocksEngine engine = open(CountRules.NONE)) {
            apply(
                    engine,
                    1,
                    Command.put(KS, key("t", "a"), b("1")),
                    Command.put(KS, key("t", "b"), b("1")),
                    Command.put(KS, key("u", "a"), b("1")),
                    Command.put(KS, b("no separator: not counted"), b("1")),
                    Command.put(LOG, b("l1"), b("1")));
        }
        try (RocksEngine engine = open(RULES)) {
            assertEquals(2, count(engine, "t"));
            assertEquals(1, count(engine, "u"));
            assertEquals(1, engine.countedKeys(LOG, new byte[0]));
            assertEquals(1, engine.appliedIndex(), "counting is not a change: the applied index stays");
            apply(engine, 2, Command.put(KS, key("t", "c"), b("1")));
            assertEquals(3, count(engine, "t"));
        }
    }

    @Test
    void aStoreOpenedWithOtherRulesIsCountedAgain() {
        try (RocksEngine engine = open(RULES)) {
            apply(engine, 1, Command.put(KS, key("t", "a"), b("1")), Command.put(KS, key("u", "b"), b("1")));
        }
        CountRules whole = CountRules.of(Map.of(KS, 0));
        try (RocksEngine engine = open(whole)) {
            assertEquals(2, engine.countedKeys(KS, new byte[0]));
            apply(engine, 2, Command.put(KS, key("v", "c"), b("1")));
        }
        try (RocksEngine engine = open(RULES)) {
            assertEquals(1, count(engine, "v"), "counted again from the keys, not left from the first rules");
            assertEquals(3, engine.countedKeys(KS, new byte[0]));
            assertNotNull(engine.get(KS, key("v", "c")));
        }
    }
}
