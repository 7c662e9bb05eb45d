package io.lodestar.kv.raft;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.error.RaftError;
import io.lodestar.kv.KvEntry;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeEvent.Kind;
import io.lodestar.kv.feed.ChangeFeed;
import io.lodestar.kv.feed.ChangeListener;
import io.lodestar.kv.rocks.RocksEngine;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives {@link KvStateMachine#onApply} the way JRaft does, over a real RocksDB, with a twin of
 * JRaft's iterator ({@link LogIterator}) standing in for the log.
 */
class KvStateMachineApplyTest {
    private static final String CONFIG = "config";
    private static final String NAMING = "naming";
    private static final long CACHE = 4L << 20;
    private static final long DEADLINE_SECONDS = 10;

    @TempDir
    Path tmp;

    private final ChangeFeed feed = new ChangeFeed();
    private KvStateMachine fsm;

    @BeforeEach
    void start() {
        fsm = open(Runnable::run);
    }

    @AfterEach
    void stop() {
        shutdown();
        feed.close();
    }

    // --- revisions ---

    @Test
    void revisionGrowsByOneForEachCommandThatChangedSomething() {
        Results results = new Results();
        applyEach(
                proposed(1, Command.put(CONFIG, bytes("a"), bytes("1")), results),
                proposed(2, Command.put(CONFIG, bytes("b"), bytes("1")), results),
                proposed(3, Command.delete(CONFIG, bytes("missing")), results),
                proposed(4, Command.putIfRevision(CONFIG, bytes("a"), bytes("x"), 99), results),
                proposed(5, Command.delete(CONFIG, bytes("a")), results),
                proposed(
                        6,
                        Command.batch(List.of(
                                Op.put(CONFIG, bytes("c"), bytes("1")), Op.put(NAMING, bytes("c"), bytes("1")))),
                        results));

        assertEquals(List.of(1L, 2L, 2L, 2L, 3L, 4L), results.revisions());
        assertEquals(List.of(true, true, true, false, true, true), results.succeeded());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), results.indexes());
        assertEquals(4, revision());
        assertEquals(6, appliedIndex(), "entries that changed nothing still count as applied");
    }

    @Test
    void createRevisionStaysWhileModifyRevisionMoves() {
        applyEach(
                entry(1, Command.put(CONFIG, bytes("k"), bytes("v1"))),
                entry(2, Command.put(CONFIG, bytes("other"), bytes("x"))),
                entry(3, Command.put(CONFIG, bytes("k"), bytes("v2"))));

        KvEntry k = get(CONFIG, "k");
        assertEquals(1, k.createRevision());
        assertEquals(3, k.modRevision());
        assertValue(CONFIG, "k", "v2");
    }

    @Test
    void keyRecreatedAfterDeleteGetsANewCreateRevision() {
        applyEach(
                entry(1, Command.put(CONFIG, bytes("k"), bytes("v1"))),
                entry(2, Command.delete(CONFIG, bytes("k"))),
                entry(3, Command.put(CONFIG, bytes("k"), bytes("v2"))));

        KvEntry k = get(CONFIG, "k");
        assertEquals(3, k.createRevision());
        assertEquals(3, k.modRevision());
    }

    // --- guards ---

    @Test
    void putIfRevisionZeroSucceedsOnlyWhenTheKeyIsAbsent() {
        Results results = new Results();
        applyEach(
                proposed(1, Command.putIfRevision(CONFIG, bytes("k"), bytes("first"), 0), results),
                proposed(2, Command.putIfRevision(CONFIG, bytes("k"), bytes("second"), 0), results));

        assertEquals(List.of(true, false), results.succeeded());
        assertValue(CONFIG, "k", "first");
        assertEquals(1, revision());
    }

    @Test
    void staleGuardsFailAndWriteNothing() {
        BlockingQueue<ChangeEvent> events = subscribe();
        applyEach(
                entry(1, Command.put(CONFIG, bytes("k"), bytes("v1"))),
                entry(2, Command.put(CONFIG, bytes("k"), bytes("v2"))));
        Results results = new Results();

        applyEach(
                proposed(3, Command.putIfRevision(CONFIG, bytes("k"), bytes("stale-rev"), 1), results),
                proposed(4, Command.putIfValueMd5(CONFIG, bytes("k"), bytes("stale-md5"), md5("v1")), results),
                proposed(5, Command.putIfValueMd5(CONFIG, bytes("absent"), bytes("x"), md5("")), results),
                proposed(6, Command.putIfRevision(CONFIG, bytes("absent"), bytes("x"), 2), results));

        assertEquals(List.of(false, false, false, false), results.succeeded());
        assertEquals(List.of(2L, 2L, 2L, 2L), results.revisions(), "a failed guard reports the current revision");
        assertEquals(List.of(3L, 4L, 5L, 6L), results.indexes());
        KvEntry k = get(CONFIG, "k");
        assertArrayEquals(bytes("v2"), k.value());
        assertEquals(2, k.modRevision());
        assertNull(get(CONFIG, "absent"));
        assertEquals(2, revision());
        assertEquals(6, appliedIndex());

        // the same guards with current values hold; their events follow the first two directly
        applyEach(
                proposed(7, Command.putIfRevision(CONFIG, bytes("k"), bytes("v3"), 2), results),
                proposed(8, Command.putIfValueMd5(CONFIG, bytes("k"), bytes("v4"), md5("v3")), results));
        assertEquals(List.of(true, true), results.succeeded().subList(4, 6));
        assertValue(CONFIG, "k", "v4");
        assertEquals(List.of(1L, 2L, 3L, 4L), revisionsOf(await(events, 4)));
    }

    @Test
    void batchAppliesAllItsOpsUnderOneRevision() {
        applyEach(entry(1, Command.put(CONFIG, bytes("x"), bytes("old"))));

        applyEach(entry(
                2,
                Command.batch(List.of(
                        Op.put(CONFIG, bytes("a"), bytes("1")),
                        Op.put(NAMING, bytes("b"), bytes("2")),
                        Op.delete(CONFIG, bytes("x"))))));

        assertEquals(2, revision());
        assertEquals(2, get(CONFIG, "a").modRevision());
        assertEquals(2, get(NAMING, "b").modRevision());
        assertNull(get(CONFIG, "x"));
    }

    @Test
    void putAtRevisionAppendsUnderThePrefixKeyedByTheCommandsRevision() {
        applyEach(entry(1, Command.put(CONFIG, bytes("x"), bytes("v"))));
        applyEach(entry(
                2,
                Command.batch(List.of(
                        Op.put(CONFIG, bytes("x"), bytes("v2")),
                        Op.putAtRevision(NAMING, bytes("log/"), bytes("first"))))));
        applyEach(entry(3, Command.batch(List.of(Op.putAtRevision(NAMING, bytes("log/"), bytes("second"))))));

        List<KvEntry> log = fsm.read(engine -> engine.scan(NAMING, bytes("log/"), 10));
        assertEquals(2, log.size());
        assertEquals(2, java.nio.ByteBuffer.wrap(log.get(0).key(), 4, 8).getLong(), "suffix is the revision");
        assertEquals("first", new String(log.get(0).value(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(3, java.nio.ByteBuffer.wrap(log.get(1).key(), 4, 8).getLong());
        assertEquals(3, log.get(1).createRevision());
        assertEquals(3, revision());
    }

    @Test
    void guardedBatchWhoseGuardFailsAppliesNoneOfItsOps() {
        applyEach(entry(1, Command.put(CONFIG, bytes("a"), bytes("1"))));
        Results results = new Results();

        applyEach(proposed(
                2,
                Command.of(
                        List.of(Compare.modRevision(CONFIG, bytes("a"), 1), Compare.modRevision(CONFIG, bytes("b"), 7)),
                        List.of(Op.put(CONFIG, bytes("a"), bytes("2")), Op.put(CONFIG, bytes("c"), bytes("3")))),
                results));

        assertEquals(List.of(false), results.succeeded());
        assertValue(CONFIG, "a", "1");
        assertNull(get(CONFIG, "c"));
        assertEquals(1, revision());
    }

    @Test
    void guardsSeeEarlierEntriesOfTheSameBatch() {
        Results results = new Results();
        LogIterator it = apply(
                proposed(1, Command.put(CONFIG, bytes("k"), bytes("v1")), results),
                proposed(2, Command.putIfRevision(CONFIG, bytes("k"), bytes("v2"), 1), results),
                proposed(3, Command.putIfRevision(CONFIG, bytes("k"), bytes("lost"), 0), results),
                proposed(4, Command.putIfValueMd5(CONFIG, bytes("k"), bytes("v4"), md5("v2")), results),
                proposed(5, Command.delete(CONFIG, bytes("k")), results),
                proposed(6, Command.putIfRevision(CONFIG, bytes("k"), bytes("v6"), 0), results));

        assertTrue(it.exhausted());
        assertEquals(List.of(true, true, false, true, true, true), results.succeeded());
        assertEquals(List.of(1L, 2L, 2L, 3L, 4L, 5L), results.revisions());
        KvEntry k = get(CONFIG, "k");
        assertArrayEquals(bytes("v6"), k.value());
        assertEquals(5, k.createRevision());
        assertEquals(5, revision());
        assertEquals(6, appliedIndex());
    }

    // --- replay and failure ---

    @Test
    void replayedEntriesAreSkippedAndOnlyNewOnesApplied() {
        List<Entry> log = List.of(
                entry(1, Command.put(CONFIG, bytes("a"), bytes("1"))),
                entry(2, Command.put(CONFIG, bytes("b"), bytes("1"))),
                entry(3, Command.put(CONFIG, bytes("a"), bytes("2"))),
                entry(4, Command.delete(CONFIG, bytes("b"))),
                entry(5, Command.put(NAMING, bytes("c"), bytes("1"))),
                entry(6, Command.put(CONFIG, bytes("a"), bytes("3"))),
                entry(7, Command.put(CONFIG, bytes("d"), bytes("1"))));
        apply(log.subList(0, 5));
        assertEquals(5, revision());

        restart();
        BlockingQueue<ChangeEvent> events = subscribe();
        LogIterator onlyOld = apply(log.subList(0, 5));
        assertTrue(onlyOld.exhausted());
        assertEquals(5, revision(), "replaying applied entries changes nothing");
        LogIterator it = apply(log);

        assertTrue(it.exhausted());
        assertEquals(7, appliedIndex());
        assertEquals(7, revision());
        KvEntry a = get(CONFIG, "a");
        assertArrayEquals(bytes("3"), a.value());
        assertEquals(1, a.createRevision());
        assertEquals(6, a.modRevision());
        assertNull(get(CONFIG, "b"));
        assertEquals(5, get(NAMING, "c").modRevision());
        assertEquals(7, get(CONFIG, "d").modRevision());
        List<ChangeEvent> published = await(events, 2);
        assertEquals(List.of(6L, 7L), revisionsOf(published));
        assertEquals(List.of("a", "d"), keysOf(published));
    }

    @Test
    void undecodableEntryHaltsAfterCommittingTheEntriesBeforeIt() {
        BlockingQueue<ChangeEvent> events = subscribe();
        Results results = new Results();

        LogIterator it = apply(
                proposed(1, Command.put(CONFIG, bytes("a"), bytes("1")), results),
                proposed(2, Command.put(CONFIG, bytes("b"), bytes("2")), results),
                new Entry(3, ByteBuffer.wrap(bytes("not hessian at all")), null),
                proposed(4, Command.put(CONFIG, bytes("c"), bytes("3")), results));

        assertNotNull(it.error(), "the state machine did not report the bad entry");
        assertEquals(RaftError.ESTATEMACHINE, it.error().getRaftError());
        assertEquals(3, it.firstUnapplied(), "JRaft must roll back to the bad entry, not before or after it");
        assertEquals(List.of(1L, 2L), results.indexes(), "entries before the bad one are acknowledged, none after");
        assertEquals(List.of(), results.failures, "entry 4's closure is JRaft's to fail, not the state machine's");
        assertEquals(2, appliedIndex());
        assertEquals(2, revision());
        assertValue(CONFIG, "a", "1");
        assertValue(CONFIG, "b", "2");
        assertNull(get(CONFIG, "c"));
        assertEquals(List.of("a", "b"), keysOf(await(events, 2)));

        restart();
        assertEquals(2, appliedIndex(), "what was acknowledged is durable");
        assertValue(CONFIG, "b", "2");
    }

    @Test
    void entryFailingMidwayLeavesNoneOfItsOpsBehind() {
        BlockingQueue<ChangeEvent> events = subscribe();

        LogIterator it = apply(
                entry(1, Command.put(CONFIG, bytes("a"), bytes("1"))),
                entry(
                        2,
                        Command.batch(List.of(
                                Op.put(CONFIG, bytes("x"), bytes("half")),
                                Op.put("no-such-keyspace", bytes("y"), bytes("other half"))))),
                entry(3, Command.put(CONFIG, bytes("z"), bytes("3"))));

        assertNotNull(it.error());
        assertEquals(2, it.firstUnapplied());
        assertValue(CONFIG, "a", "1");
        assertNull(get(CONFIG, "x"), "half of the failed entry was written");
        assertNull(get(CONFIG, "z"));
        assertEquals(1, appliedIndex());
        assertEquals(1, revision());
        // the next entry's event would follow any event of the failed one: publish one more to see
        applyEach(entry(4, Command.put(CONFIG, bytes("after"), bytes("4"))));
        assertEquals(List.of("a", "after"), keysOf(await(events, 2)));

        restart();
        assertNull(get(CONFIG, "x"), "half of the failed entry is on disk");
    }

    // --- proposers and listeners ---

    @Test
    void proposerHearsItsResultWithIndexThroughTheCompletionExecutorAfterTheWrite() {
        shutdown();
        List<Runnable> completions = new ArrayList<>();
        fsm = open(completions::add);
        List<String> seenByProposer = new ArrayList<>();
        List<WriteResult> heard = new ArrayList<>();
        ProposeClosure put = new ProposeClosure(
                Command.put(CONFIG, bytes("k"), bytes("v")),
                result -> {
                    heard.add(result);
                    KvEntry stored = get(CONFIG, "k");
                    seenByProposer.add(stored == null ? null : new String(stored.value(), UTF_8));
                },
                status -> fail("proposal failed: " + status));
        ProposeClosure stale = new ProposeClosure(
                Command.putIfRevision(CONFIG, bytes("k"), bytes("w"), 0),
                heard::add,
                status -> fail("proposal failed: " + status));

        apply(new Entry(11, encode(put.command()), put), new Entry(12, encode(stale.command()), stale));

        assertEquals(List.of(), heard, "closures ran on the apply thread instead of the completion executor");
        assertEquals(1, completions.size(), "one hand-off per batch");
        completions.forEach(Runnable::run);

        assertEquals(2, heard.size());
        assertTrue(heard.get(0).succeeded());
        assertEquals(1, heard.get(0).revision());
        assertEquals(11, heard.get(0).index());
        assertFalse(heard.get(1).succeeded());
        assertEquals(1, heard.get(1).revision());
        assertEquals(12, heard.get(1).index());
        assertEquals(List.of("v"), seenByProposer, "the proposer can read its own write when it hears of it");
    }

    @Test
    void changeFeedCarriesKeyspaceKeyRevisionAndKindInOrder() {
        BlockingQueue<ChangeEvent> events = subscribe();

        apply(
                entry(1, Command.put(CONFIG, bytes("a"), bytes("1"))),
                entry(2, Command.put(NAMING, bytes("b"), bytes("2"))));
        apply(
                entry(3, Command.delete(CONFIG, bytes("a"))),
                entry(4, Command.batch(List.of(Op.put(CONFIG, bytes("c"), bytes("3")), Op.delete(NAMING, bytes("b"))))),
                entry(5, Command.delete(CONFIG, bytes("missing"))),
                entry(6, Command.putIfRevision(CONFIG, bytes("c"), bytes("x"), 99)));
        apply(entry(7, Command.put(CONFIG, bytes("d"), bytes("4"))));

        List<ChangeEvent> got = await(events, 6);
        assertEquals(
                List.of(
                        "config/a@1 PUT",
                        "naming/b@2 PUT",
                        "config/a@3 DELETE",
                        "config/c@4 PUT",
                        "naming/b@4 DELETE",
                        "config/d@5 PUT"),
                describe(got));
    }

    // --- the log twin and helpers ---

    /** One committed data entry: its index, its bytes, and the proposer's closure on the leader. */
    record Entry(long index, ByteBuffer data, Closure done) {}

    /**
     * A faithful twin of JRaft's {@code IteratorWrapper} over committed data entries: {@code next}
     * returns the current data and moves on; after {@code setErrorAndRollback} it has no next, and
     * remembers the first index JRaft would treat as not applied.
     */
    static final class LogIterator implements Iterator {
        private final List<Entry> entries;
        private int position;
        private Status error;
        private long firstUnapplied = -1;

        LogIterator(List<Entry> entries) {
            for (int i = 1; i < entries.size(); i++) {
                if (entries.get(i).index() != entries.get(i - 1).index() + 1) {
                    throw new IllegalArgumentException("log indexes must be consecutive");
                }
            }
            this.entries = entries;
        }

        @Override
        public boolean hasNext() {
            return error == null && position < entries.size();
        }

        @Override
        public ByteBuffer next() {
            ByteBuffer data = getData();
            if (hasNext()) {
                position++;
            }
            return data;
        }

        @Override
        public ByteBuffer getData() {
            return position < entries.size() ? entries.get(position).data() : null;
        }

        @Override
        public long getIndex() {
            return position < entries.size()
                    ? entries.get(position).index()
                    : entries.get(entries.size() - 1).index() + 1;
        }

        @Override
        public long getTerm() {
            return 1;
        }

        @Override
        public Closure done() {
            return position < entries.size() ? entries.get(position).done() : null;
        }

        @Override
        public boolean commit() {
            throw new UnsupportedOperationException("the state machine commits through RocksDB, not JRaft");
        }

        @Override
        public void commitAndSnapshotSync(Closure done) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setAutoCommitPerLog(boolean status) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setErrorAndRollback(long ntail, Status st) {
            if (ntail <= 0) {
                throw new IllegalArgumentException("Invalid ntail=" + ntail);
            }
            if (error != null) {
                throw new IllegalStateException("error set twice");
            }
            // as JRaft: positioned on a data entry, rolling back n entries keeps n - 1 before it
            firstUnapplied = getIndex() - (ntail - 1);
            error = st;
        }

        Status error() {
            return error;
        }

        long firstUnapplied() {
            return firstUnapplied;
        }

        boolean exhausted() {
            return position == entries.size();
        }
    }

    /** Collects what proposers hear, in the order they hear it. */
    static final class Results {
        final List<WriteResult> results = new ArrayList<>();
        final List<Status> failures = new ArrayList<>();

        List<Long> revisions() {
            return results.stream().map(WriteResult::revision).toList();
        }

        List<Boolean> succeeded() {
            return results.stream().map(WriteResult::succeeded).toList();
        }

        List<Long> indexes() {
            return results.stream().map(WriteResult::index).toList();
        }
    }

    private KvStateMachine open(Executor completions) {
        return new KvStateMachine(
                new KvDirectory(tmp.resolve("kv")),
                List.of(CONFIG, NAMING),
                CountRules.NONE,
                CACHE,
                feed,
                completions,
                Runnable::run);
    }

    private void shutdown() {
        if (fsm != null) {
            fsm.onShutdown();
            fsm = null;
        }
    }

    private void restart() {
        shutdown();
        fsm = open(Runnable::run);
    }

    private LogIterator apply(Entry... entries) {
        return apply(List.of(entries));
    }

    private LogIterator apply(List<Entry> entries) {
        LogIterator it = new LogIterator(entries);
        fsm.onApply(it);
        return it;
    }

    /** Each entry in its own {@code onApply}, as when entries commit one at a time. */
    private void applyEach(Entry... entries) {
        for (Entry e : entries) {
            LogIterator it = apply(e);
            assertTrue(it.exhausted() && it.error() == null, "entry " + e.index() + " failed: " + it.error());
        }
    }

    private static Entry entry(long index, Command command) {
        return new Entry(index, encode(command), null);
    }

    private static Entry proposed(long index, Command command, Results results) {
        return new Entry(
                index, encode(command), new ProposeClosure(command, results.results::add, results.failures::add));
    }

    private static ByteBuffer encode(Command command) {
        return ByteBuffer.wrap(KvStateMachine.CODEC.encode(command));
    }

    private BlockingQueue<ChangeEvent> subscribe() {
        BlockingQueue<ChangeEvent> events = new LinkedBlockingQueue<>();
        feed.subscribe(
                new ChangeListener() {
                    @Override
                    public void onChange(ChangeEvent event) {
                        events.add(event);
                    }

                    @Override
                    public void onResync(long fromRevision) {
                        // nothing here should fall behind: make a resync show up in the asserted events
                        events.add(new ChangeEvent("RESYNC", new byte[0], fromRevision, Kind.PUT));
                    }
                },
                1000);
        return events;
    }

    private static List<ChangeEvent> await(BlockingQueue<ChangeEvent> events, int count) {
        List<ChangeEvent> got = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        try {
            while (got.size() < count) {
                ChangeEvent e = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (e == null) {
                    fail("only " + describe(got) + " of " + count + " events within " + DEADLINE_SECONDS + "s");
                }
                got.add(e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return got;
    }

    private static List<String> describe(List<ChangeEvent> events) {
        return events.stream()
                .map(e -> e.keyspace() + "/" + new String(e.key(), UTF_8) + "@" + e.revision() + " " + e.kind())
                .toList();
    }

    private static List<Long> revisionsOf(List<ChangeEvent> events) {
        return events.stream().map(ChangeEvent::revision).toList();
    }

    private static List<String> keysOf(List<ChangeEvent> events) {
        return events.stream().map(e -> new String(e.key(), UTF_8)).toList();
    }

    private KvEntry get(String keyspace, String key) {
        return fsm.read(engine -> engine.get(keyspace, bytes(key)));
    }

    private long revision() {
        return fsm.read(RocksEngine::revision);
    }

    private long appliedIndex() {
        return fsm.read(RocksEngine::appliedIndex);
    }

    private void assertValue(String keyspace, String key, String value) {
        KvEntry found = get(keyspace, key);
        assertNotNull(found, keyspace + "/" + key + " missing");
        assertEquals(value, new String(found.value(), UTF_8));
    }

    private static byte[] md5(String value) {
        try {
            return java.security.MessageDigest.getInstance("MD5").digest(bytes(value));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }
}
