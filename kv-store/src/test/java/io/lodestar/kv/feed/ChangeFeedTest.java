package io.lodestar.kv.feed;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChangeFeedTest {
    private static final long DEADLINE_SECONDS = 10;

    private final ChangeFeed feed = new ChangeFeed();
    private final List<CountDownLatch> toRelease = new ArrayList<>();

    @AfterEach
    void close() {
        toRelease.forEach(CountDownLatch::countDown);
        feed.close();
    }

    @Test
    void eventsArriveInOrderToEachListenerOnAFeedThread() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        feed.subscribe(a, 1000);
        feed.subscribe(b, 1000);

        long revision = 0;
        for (int size = 1; revision < 100; size = size % 5 + 1) {
            List<ChangeEvent> batch = new ArrayList<>();
            for (int i = 0; i < size && revision < 100; i++) {
                batch.add(event(++revision));
            }
            feed.publish(batch);
        }

        for (Recorder r : List.of(a, b)) {
            assertEquals(changes(1, 100), r.await(100));
            assertFalse(r.threads.contains(Thread.currentThread()), "delivered on the publisher's thread");
            assertFalse(r.threads.isEmpty());
        }
    }

    @Test
    void stuckListenerBlocksNeitherPublishNorOtherListeners() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = latchReleasedAfterTest();
        AtomicBoolean returned = new AtomicBoolean();
        feed.subscribe(
                new Recorder() {
                    @Override
                    public void onChange(ChangeEvent event) {
                        entered.countDown();
                        awaitQuietly(release);
                        returned.set(true);
                    }
                },
                4);
        Recorder other = new Recorder();
        feed.subscribe(other, 10_000);

        feed.publish(List.of(event(1)));
        awaitLatch(entered, "the stuck listener to be called");
        assertTimeoutPreemptively(
                Duration.ofSeconds(DEADLINE_SECONDS),
                () -> {
                    for (long r = 2; r <= 1000; r++) {
                        feed.publish(List.of(event(r)));
                    }
                },
                "publish blocked on a stuck listener");

        assertEquals(changes(1, 1000), other.await(1000));
        assertFalse(returned.get(), "the stuck listener was let go before the others got everything");
    }

    @Test
    void listenerThatFellBehindIsToldToResyncFromNoLaterThanItsFirstMissedEventThenGetsLaterOnes() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = latchReleasedAfterTest();
        Recorder slow = new Recorder() {
            @Override
            public void onChange(ChangeEvent event) {
                super.onChange(event);
                if (event.revision() == 1) {
                    entered.countDown();
                    awaitQuietly(release);
                }
            }
        };
        feed.subscribe(slow, 2);

        feed.publish(List.of(event(1)));
        awaitLatch(entered, "the slow listener to take event 1");
        for (long r = 2; r <= 10; r++) {
            feed.publish(List.of(event(r)));
        }
        release.countDown();
        List<Seen> untilResync = slow.awaitUntil(Seen::isResync);
        feed.publish(List.of(event(11)));
        feed.publish(List.of(event(12)));
        List<Seen> afterResync = slow.awaitUntil(s -> s.equals(Seen.change(12)));

        assertResyncCoversTheGap(untilResync, afterResync, 12);
    }

    @Test
    void listenerThatThrowsIsToldToResyncAndKeepsGettingLaterEvents() {
        assertAFailureAtRevision3IsResyncedAndLaterEventsArrive(new FailingOnceAt3(false));
    }

    @Test
    void resyncAllReachesEveryListenerAndDeliveryResumesAfterIt() {
        List<Recorder> listeners = List.of(new Recorder(), new Recorder(), new Recorder());
        listeners.forEach(r -> feed.subscribe(r, 100));
        feed.publish(List.of(event(1), event(2), event(3)));
        for (Recorder r : listeners) {
            assertEquals(changes(1, 3), r.await(3));
        }

        feed.resyncAll(4);
        for (Recorder r : listeners) {
            List<Seen> seen = r.awaitUntil(Seen::isResync);
            assertEquals(1, seen.size(), "only the resync was expected: " + seen);
            assertTrue(seen.get(0).revision() <= 4, "resync from " + seen.get(0).revision());
        }
        feed.publish(List.of(event(4)));
        for (Recorder r : listeners) {
            assertEquals(changes(4, 4), r.await(1));
        }
    }

    @Test
    void resyncAllReachesBackToEventsItDropsFromAStuckListenersQueue() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = latchReleasedAfterTest();
        Recorder stuck = new Recorder() {
            @Override
            public void onChange(ChangeEvent event) {
                super.onChange(event);
                if (event.revision() == 1) {
                    entered.countDown();
                    awaitQuietly(release);
                }
            }
        };
        feed.subscribe(stuck, 100);
        feed.publish(List.of(event(1)));
        awaitLatch(entered, "the listener to take event 1");
        feed.publish(List.of(event(2), event(3)));

        feed.resyncAll(10);
        release.countDown();
        List<Seen> seen = stuck.awaitUntil(Seen::isResync);

        assertResyncCoversTheGap(seen, List.of(), 3);
    }

    @Test
    void unsubscribedListenerGetsNothingMore() throws Exception {
        Recorder leaving = new Recorder();
        Recorder staying = new Recorder();
        AutoCloseable subscription = feed.subscribe(leaving, 100);
        feed.subscribe(staying, 100);
        feed.publish(List.of(event(1)));
        assertEquals(changes(1, 1), leaving.await(1));
        assertEquals(changes(1, 1), staying.await(1));

        subscription.close();
        feed.publish(List.of(event(2)));
        assertEquals(List.of(Seen.change(2)), staying.await(1));
        feed.resyncAll(3);
        assertEquals(List.of(Seen.resync(3)), staying.await(1));

        assertNull(leaving.seen.poll(300, TimeUnit.MILLISECONDS), "delivered after unsubscribe");
    }

    @Test
    void listenerIsNeverCalledConcurrentlyEvenWithConcurrentPublishers() throws InterruptedException {
        AtomicInteger inside = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        int publishers = 4;
        int each = 2_000;
        CountDownLatch delivered = new CountDownLatch(publishers * each);
        Recorder guarded = new Recorder() {
            @Override
            public void onChange(ChangeEvent event) {
                enter();
                delivered.countDown();
                exit();
            }

            @Override
            public void onResync(long fromRevision) {
                enter();
                exit();
            }

            private void enter() {
                if (inside.incrementAndGet() != 1) {
                    overlapped.set(true);
                }
                Thread.onSpinWait();
            }

            private void exit() {
                inside.decrementAndGet();
            }
        };
        feed.subscribe(guarded, 1_000_000);
        CyclicBarrier start = new CyclicBarrier(publishers);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < publishers; p++) {
            long base = (long) p * each;
            Thread t = new Thread(
                    () -> {
                        awaitQuietly(start);
                        for (long r = 1; r <= each; r++) {
                            feed.publish(List.of(event(base + r)));
                        }
                    },
                    "publisher-" + p);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            assertFalse(t.isAlive(), t.getName() + " did not finish");
        }
        awaitLatch(delivered, "every published event to be delivered");
        assertFalse(overlapped.get(), "two feed threads were inside one listener at once");
    }

    @Test
    void aDirectListenerHearsOnThePublishersThreadInOrder() {
        Recorder direct = new DirectRecorder();
        Recorder queued = new Recorder();
        feed.subscribe(direct, 1000);
        feed.subscribe(queued, 1000);

        for (long r = 1; r <= 100; r++) {
            feed.publish(List.of(event(r)));
            assertEquals(List.of(Seen.change(r)), List.copyOf(direct.seen), "not heard before publish returned");
            direct.seen.clear();
        }

        assertEquals(Set.of(Thread.currentThread()), direct.threads);
        assertEquals(changes(1, 100), queued.await(100));
        assertFalse(queued.threads.contains(Thread.currentThread()), "a queued listener called by the publisher");
    }

    @Test
    void aDirectListenerThatThrowsResyncsOnAFeedThreadThenHearsDirectlyAgain() {
        Recorder flaky = new FailingOnceAt3(true);
        assertAFailureAtRevision3IsResyncedAndLaterEventsArrive(flaky);
        assertEquals(2, flaky.threads.size(), "the resync on a feed thread, the rest on the publisher's");
        assertTrue(flaky.threads.contains(Thread.currentThread()));
    }

    /** Publishes 1 to 5 (the listener throws at 3), then 6 and 7. */
    private void assertAFailureAtRevision3IsResyncedAndLaterEventsArrive(Recorder flaky) {
        feed.subscribe(flaky, 100);
        feed.publish(List.of(event(1), event(2), event(3), event(4), event(5)));
        List<Seen> untilResync = flaky.awaitUntil(Seen::isResync);
        feed.publish(List.of(event(6)));
        feed.publish(List.of(event(7)));
        List<Seen> afterResync = flaky.awaitUntil(s -> s.equals(Seen.change(7)));

        assertResyncCoversTheGap(untilResync, afterResync, 7);
    }

    @Test
    void eventsForADirectListenerBusyResyncingWaitBehindTheResyncWithoutBlockingPublish() {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = latchReleasedAfterTest();
        Recorder resyncing = new DirectRecorder() {
            @Override
            public void onResync(long fromRevision) {
                entered.countDown();
                awaitQuietly(release);
                super.onResync(fromRevision);
            }
        };
        feed.subscribe(resyncing, 100);
        feed.resyncAll(1);
        awaitLatch(entered, "the resync to start");

        assertTimeoutPreemptively(
                Duration.ofSeconds(DEADLINE_SECONDS),
                () -> {
                    for (long r = 1; r <= 10; r++) {
                        feed.publish(List.of(event(r)));
                    }
                },
                "publish blocked on a listener busy resyncing");
        assertTrue(resyncing.seen.isEmpty(), "heard during its resync: " + resyncing.seen);
        release.countDown();

        List<Seen> seen = resyncing.await(11);
        assertEquals(Seen.resync(1), seen.get(0));
        assertEquals(changes(1, 10), seen.subList(1, 11));
    }

    // --- helpers ---

    /** What a listener saw: a change at a revision, or a resync from one. */
    record Seen(boolean isResync, long revision) {
        static Seen change(long revision) {
            return new Seen(false, revision);
        }

        static Seen resync(long fromRevision) {
            return new Seen(true, fromRevision);
        }

        @Override
        public String toString() {
            return (isResync ? "resync@" : "") + revision;
        }
    }

    /** Records what it sees and on which threads. */
    @Test
    void aListenerHearsOnlyItsKeyspacesAndOthersNeverFillItsQueue() {
        Recorder all = new Recorder();
        Recorder namingOnly = new Recorder() {
            @Override
            public boolean hears(String keyspace) {
                return keyspace.equals("naming");
            }
        };
        feed.subscribe(all, 1000);
        feed.subscribe(namingOnly, 1); // 100 unheard events must not overflow a queue of one

        List<ChangeEvent> configs = new ArrayList<>();
        for (long revision = 1; revision <= 100; revision++) {
            configs.add(event(revision));
        }
        feed.publish(configs);
        feed.publish(List.of(new ChangeEvent("naming", "svc".getBytes(UTF_8), 101, ChangeEvent.Kind.PUT)));

        assertEquals(changes(1, 101), all.await(101));
        assertEquals(List.of(Seen.change(101)), namingOnly.await(1), "no config event, and no resync");
        assertNull(namingOnly.seen.poll(), "nothing after it");
    }

    static class DirectRecorder extends Recorder {
        @Override
        public boolean direct() {
            return true;
        }
    }

    /** Throws the first time it is given revision 3. */
    static class FailingOnceAt3 extends Recorder {
        private final boolean direct;
        private final AtomicBoolean thrown = new AtomicBoolean();

        FailingOnceAt3(boolean direct) {
            this.direct = direct;
        }

        @Override
        public boolean direct() {
            return direct;
        }

        @Override
        public void onChange(ChangeEvent event) {
            if (event.revision() == 3 && thrown.compareAndSet(false, true)) {
                throw new IllegalStateException("listener bug at revision 3");
            }
            super.onChange(event);
        }
    }

    static class Recorder implements ChangeListener {
        final BlockingQueue<Seen> seen = new LinkedBlockingQueue<>();
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();

        @Override
        public void onChange(ChangeEvent event) {
            threads.add(Thread.currentThread());
            seen.add(Seen.change(event.revision()));
        }

        @Override
        public void onResync(long fromRevision) {
            threads.add(Thread.currentThread());
            seen.add(Seen.resync(fromRevision));
        }

        List<Seen> await(int count) {
            List<Seen> got = new ArrayList<>();
            while (got.size() < count) {
                got.add(next(got, "item " + (got.size() + 1) + " of " + count));
            }
            return got;
        }

        /** Everything seen up to and including the first item that matches. */
        List<Seen> awaitUntil(Predicate<Seen> last) {
            List<Seen> got = new ArrayList<>();
            do {
                got.add(next(got, "the awaited item"));
            } while (!last.test(got.get(got.size() - 1)));
            return got;
        }

        private Seen next(List<Seen> sofar, String what) {
            try {
                Seen s = seen.poll(DEADLINE_SECONDS, TimeUnit.SECONDS);
                if (s == null) {
                    fail("no " + what + " within " + DEADLINE_SECONDS + "s; saw " + sofar);
                }
                return s;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /**
     * {@code untilResync} ends with the resync; before it, the changes are a gap-free run from 1.
     * The resync must reach back to the first change not delivered before it; the changes after it
     * must be gap-free and end at {@code lastRevision}.
     */
    private static void assertResyncCoversTheGap(List<Seen> untilResync, List<Seen> afterResync, long lastRevision) {
        List<Seen> before = untilResync.subList(0, untilResync.size() - 1);
        Seen resync = untilResync.get(untilResync.size() - 1);
        assertTrue(resync.isResync());
        assertEquals(changes(1, before.size()), before, "changes before the resync");
        long firstMissed = before.size() + 1;
        assertTrue(
                resync.revision() <= firstMissed,
                "resync from " + resync.revision() + " skips " + firstMissed + ": " + untilResync);
        assertTrue(afterResync.stream().noneMatch(Seen::isResync), "second resync: " + afterResync);
        if (!afterResync.isEmpty()) {
            long first = afterResync.get(0).revision();
            assertEquals(changes(first, lastRevision), afterResync, "changes after the resync have a gap");
        }
    }

    private static List<Seen> changes(long from, long to) {
        return LongStream.rangeClosed(from, to).mapToObj(Seen::change).toList();
    }

    private static ChangeEvent event(long revision) {
        return new ChangeEvent("config", ("k" + revision).getBytes(UTF_8), revision, ChangeEvent.Kind.PUT);
    }

    private CountDownLatch latchReleasedAfterTest() {
        CountDownLatch latch = new CountDownLatch(1);
        toRelease.add(latch);
        return latch;
    }

    private static void awaitLatch(CountDownLatch latch, String what) {
        try {
            assertTrue(latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS), "waited " + DEADLINE_SECONDS + "s for " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(DEADLINE_SECONDS * 3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitQuietly(CyclicBarrier barrier) {
        try {
            barrier.await(DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
