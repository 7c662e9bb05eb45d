package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeadlinesTest {
    private static final long TIMEOUT_MS = 100;
    private static final long SWEEP_MS = 20;

    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final Deadlines deadlines = new Deadlines(TIMEOUT_MS, () -> new IllegalStateException("timed out"),
            timer, SWEEP_MS);

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void aRequestStillPendingAtItsDeadlineFails() {
        CompletableFuture<String> pending = new CompletableFuture<>();
        long start = System.nanoTime();
        deadlines.add(pending);

        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= TIMEOUT_MS, "failed after " + tookMs + " ms, before its " + TIMEOUT_MS + " ms timeout");
    }

    @Test
    void aCompletedRequestKeepsItsResult() throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        deadlines.add(done);
        done.complete("ok");
        CompletableFuture<String> pending = new CompletableFuture<>();
        deadlines.add(pending);

        assertThrows(ExecutionException.class, () -> pending.get(5, TimeUnit.SECONDS));
        assertEquals("ok", done.get());
    }

    @Test
    void theSweepStopsOnceNothingIsPendingAndRestartsWithTheNextRequest() throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        deadlines.add(first);
        first.complete("ok");
        awaitNoSweepScheduled();

        // idle: a request after the quiet spell arms the sweep again, and still times out
        CompletableFuture<String> later = new CompletableFuture<>();
        deadlines.add(later);
        assertEquals(1, timer.getQueue().size(), "the first request after a quiet spell arms one sweep");
        ExecutionException e = assertThrows(ExecutionException.class, () -> later.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        awaitNoSweepScheduled();
    }

    @Test
    void requestsAddedWhileTheSweepRunsAreAllFailedOnTime() throws Exception {
        // adds racing the sweep's disarm: none may be left in the queue with no sweep to fail it
        List<CompletableFuture<String>> pending = new ArrayList<>();
        for (int round = 0; round < 200; round++) {
            CompletableFuture<String> f = new CompletableFuture<>();
            deadlines.add(f);
            if (round % 3 == 0) {
                pending.add(f);
            } else {
                f.complete("ok");
            }
            Thread.sleep(1);
        }
        for (CompletableFuture<String> f : pending) {
            assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        }
        awaitNoSweepScheduled();
    }

    /**
     * Waits until no sweep has been scheduled or running for three sweep periods: a sweep that
     * reschedules itself leaves the queue empty only for the moment it runs.
     */
    private void awaitNoSweepScheduled() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long quietSince = System.nanoTime();
        while (System.nanoTime() - quietSince < TimeUnit.MILLISECONDS.toNanos(3 * SWEEP_MS)) {
            assertTrue(System.nanoTime() < deadline, "the sweep is still scheduled with nothing pending");
            if (!timer.getQueue().isEmpty() || timer.getActiveCount() > 0) {
                quietSince = System.nanoTime();
            }
            Thread.sleep(1);
        }
    }
}
