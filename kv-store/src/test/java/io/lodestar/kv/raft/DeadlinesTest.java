package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeadlinesTest {
    private static final long TIMEOUT_MS = 50;

    private final Deadlines deadlines = new Deadlines(TIMEOUT_MS, () -> new IllegalStateException("timed out"));

    @Test
    void aSweepBeforeTheDeadlineLeavesAPendingRequestAlone() {
        CompletableFuture<String> pending = new CompletableFuture<>();
        deadlines.add(pending);
        deadlines.expire();
        assertFalse(pending.isDone(), "failed before its " + TIMEOUT_MS + " ms timeout");
    }

    @Test
    void aSweepAfterTheDeadlineFailsEveryRequestStillPendingAndNoOther() throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        deadlines.add(first);
        deadlines.add(done);
        deadlines.add(second);
        done.complete("ok");
        awaitPast(TIMEOUT_MS);
        deadlines.expire();

        for (CompletableFuture<String> f : List.of(first, second)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(0, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, e.getCause());
        }
        assertEquals("ok", done.get());
    }

    @Test
    void aSweepStopsAtTheFirstRequestNotYetDue() {
        CompletableFuture<String> due = new CompletableFuture<>();
        deadlines.add(due);
        awaitPast(TIMEOUT_MS);
        CompletableFuture<String> notYet = new CompletableFuture<>();
        deadlines.add(notYet);
        deadlines.expire();

        assertThrows(ExecutionException.class, () -> due.get(0, TimeUnit.SECONDS));
        assertFalse(notYet.isDone(), "a request added after the sweep's first due one failed before its timeout");
    }

    /** Lets {@code millis} pass on the monotonic clock the deadlines are taken from. */
    private static void awaitPast(long millis) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis) + 1;
        while (System.nanoTime() - until <= 0) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
