package io.lodestar.kv.rmw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.KvEntry;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.LaggingReplica;
import io.lodestar.kv.testing.OneNodeStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

class ReadModifyWriteTest {
    private static final String KS = "rmw";
    private static final long WAIT_S = 30;

    @TempDir
    static Path dir;

    static RaftKvStore store;

    @BeforeAll
    static void start() throws Exception {
        store = OneNodeStore.start(dir, Set.of(KS));
    }

    @AfterAll
    static void stop() {
        store.close();
    }

    @Test
    void aCommandWhoseGuardHoldsCompletesWithItsValueOnce(TestInfo info) throws Exception {
        byte[] key = key(info);
        AtomicInteger attempts = new AtomicInteger();
        String result = await(new ReadModifyWrite(store).run("the key", () -> {
            attempts.incrementAndGet();
            return Step.propose(Command.putIfRevision(KS, key, bytes("v1"), 0), "written");
        }));
        assertEquals("written", result);
        assertEquals(1, attempts.get());
        assertEquals("v1", value(key));
    }

    @Test
    void proposeForRevisionCompletesWithTheRevisionOfTheWrite(TestInfo info) throws Exception {
        byte[] key = key(info);
        long revision = await(new ReadModifyWrite(store)
                .run("the key", () -> Step.proposeForRevision(Command.putIfRevision(KS, key, bytes("v1"), 0))));
        assertEquals(store.get(KS, key).modRevision(), revision);
    }

    @Test
    void anAnswerWritesNothing() throws Exception {
        long before = store.revision();
        assertEquals(
                "nothing to do", await(new ReadModifyWrite(store).run("the key", () -> Step.answer("nothing to do"))));
        assertEquals(before, store.revision());
    }

    @Test
    void aLostRaceIsComputedAgainOnAFreshRead(TestInfo info) throws Exception {
        byte[] key = key(info);
        List<String> seen = new ArrayList<>();
        String result = await(new ReadModifyWrite(store).run("the key", () -> {
            KvEntry e = store.get(KS, key);
            seen.add(e == null ? null : new String(e.value(), StandardCharsets.UTF_8));
            if (seen.size() == 1) {
                // another writer commits between this attempt's read and its proposal
                store.write(Command.put(KS, key, bytes("theirs"))).join();
            }
            return Step.propose(Command.putIfRevision(KS, key, bytes("ours"), e == null ? 0 : e.modRevision()), "done");
        }));
        assertEquals("done", result);
        assertEquals(Arrays.asList(null, "theirs"), seen, "the second attempt read what the other wrote");
        assertEquals("ours", value(key));
    }

    @Test
    void afterTheBoundOfLostRacesItGivesUpWithStoreUnavailableHavingWrittenNothing(TestInfo info) throws Exception {
        byte[] key = key(info);
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> f = new ReadModifyWrite(store, 3).run("the key", () -> {
            attempts.incrementAndGet();
            return Step.propose(Command.putIfRevision(KS, key, bytes("never"), 12345), "unreachable");
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_S, TimeUnit.SECONDS));
        assertInstanceOf(StoreUnavailableException.class, e.getCause());
        assertEquals(
                "the key changed under 3 attempts in a row; try again",
                e.getCause().getMessage());
        assertEquals(3, attempts.get());
        assertNull(store.get(KS, key));
    }

    @Test
    void theDefaultBoundIs32Attempts(TestInfo info) throws Exception {
        byte[] key = key(info);
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> f = new ReadModifyWrite(store).run("the key", () -> {
            attempts.incrementAndGet();
            return Step.propose(Command.putIfRevision(KS, key, bytes("never"), 12345), "unreachable");
        });
        assertThrows(ExecutionException.class, () -> f.get(WAIT_S, TimeUnit.SECONDS));
        assertEquals(32, attempts.get());
    }

    @Test
    void aCallerToWhomEveryLostRaceIsAnAnswerGetsItsAnswer(TestInfo info) throws Exception {
        byte[] key = key(info);
        boolean result = await(new ReadModifyWrite(store, 2)
                .run(
                        () -> Step.propose(Command.putIfRevision(KS, key, bytes("never"), 12345), true),
                        () -> CompletableFuture.completedFuture(false)));
        assertEquals(false, result);
    }

    @Test
    void anAttemptThatThrowsFailsTheFutureWithItsExceptionAndWritesNothing() {
        long before = store.revision();
        IllegalStateException refusal = new IllegalStateException("refused");
        CompletableFuture<String> f = new ReadModifyWrite(store).run("the key", () -> {
            throw refusal;
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_S, TimeUnit.SECONDS));
        assertSame(refusal, e.getCause());
        assertEquals(before, store.revision());
    }

    @Test
    void anAnswerThatNeedsACurrentReplicaIsDecidedAgainAfterOneCatchUp() throws Exception {
        LaggingReplica replica = new LaggingReplica(store);
        AtomicInteger attempts = new AtomicInteger();
        String result = await(new ReadModifyWrite(replica).run("the key", () -> {
            attempts.incrementAndGet();
            return Step.answerIfCurrent("current");
        }));
        assertEquals("current", result);
        assertEquals(2, attempts.get(), "decided once on the lagging copy, once after catching up");
        assertEquals(1, replica.catchUps());
    }

    @Test
    void concurrentIncrementsOfOneKeyAllLand(TestInfo info) throws Exception {
        byte[] key = key(info);
        int writers = 16;
        List<CompletableFuture<Void>> all = new ArrayList<>();
        ReadModifyWrite increments = new ReadModifyWrite(store);
        AtomicInteger attempts = new AtomicInteger();
        for (int i = 0; i < writers; i++) {
            // the first attempts run here, microseconds apart, while the earlier commands are still in flight
            all.add(increments.run("the counter", () -> {
                attempts.incrementAndGet();
                KvEntry e = store.get(KS, key);
                int next = e == null ? 1 : Integer.parseInt(new String(e.value(), StandardCharsets.UTF_8)) + 1;
                return Step.<Void>propose(
                        Command.putIfRevision(KS, key, bytes(Integer.toString(next)), e == null ? 0 : e.modRevision()),
                        null);
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(Integer.toString(writers), value(key));
        assertTrue(attempts.get() > writers, "some writers lost a race and computed again: " + attempts);
    }

    private static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_S, TimeUnit.SECONDS);
    }

    private static byte[] key(TestInfo info) {
        return bytes(info.getTestMethod().orElseThrow().getName());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String value(byte[] key) {
        return new String(store.get(KS, key).value(), StandardCharsets.UTF_8);
    }
}
