package io.lodestar.kv.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retries only what the predicate calls retryable, after the backoff, until the deadline. */
class RetryUntilDeadlineTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final RetryUntilDeadline retry = new RetryUntilDeadline(
            scheduler,
            Duration.ofMillis(5),
            e -> e instanceof TimeoutException,
            last -> new IllegalStateException("deadline passed; last: " + (last == null ? null : last.getMessage())),
            () -> new IllegalStateException("shut down"));

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static long in(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    @Test
    void retriesRetryableFailuresUntilAnAttemptSucceeds() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = retry.run(
                in(Duration.ofSeconds(5)),
                deadline -> attempts.incrementAndGet() < 3
                        ? CompletableFuture.failedFuture(new TimeoutException("not yet"))
                        : CompletableFuture.completedFuture("done"));
        assertEquals("done", result.get(5, TimeUnit.SECONDS));
        assertEquals(3, attempts.get());
    }

    @Test
    void aFailureThatIsNotRetryableEndsTheRunAtOnce() {
        AtomicInteger attempts = new AtomicInteger();
        IllegalArgumentException refused = new IllegalArgumentException("refused");
        CompletableFuture<String> result = retry.run(in(Duration.ofSeconds(5)), deadline -> {
            attempts.incrementAndGet();
            return CompletableFuture.<String>supplyAsync(() -> {
                throw refused;
            });
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
        assertSame(refused, e.getCause(), "unwrapped from the CompletionException");
        assertEquals(1, attempts.get());
    }

    @Test
    void aThrowingAttemptCountsAsItsFailure() {
        CompletableFuture<String> result = retry.run(in(Duration.ofSeconds(5)), deadline -> {
            throw new IllegalArgumentException("thrown");
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
        assertEquals("thrown", e.getCause().getMessage());
    }

    @Test
    void theDeadlineEndsTheRunWithTheLastRetryableFailure() {
        AtomicInteger attempts = new AtomicInteger();
        long started = System.nanoTime();
        CompletableFuture<String> result = retry.run(in(Duration.ofMillis(200)), deadline -> {
            attempts.incrementAndGet();
            return CompletableFuture.failedFuture(new TimeoutException("no leader"));
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
        assertEquals("deadline passed; last: no leader", e.getCause().getMessage());
        assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(200), "ended before the deadline");
        assertTrue(attempts.get() > 1, "retried: " + attempts.get());
    }

    @Test
    void aDeadlineAlreadyPastRunsNoAttempt() {
        AtomicInteger attempts = new AtomicInteger();
        CompletableFuture<String> result = retry.run(System.nanoTime() - 1, deadline -> {
            attempts.incrementAndGet();
            return CompletableFuture.completedFuture("x");
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
        assertEquals("deadline passed; last: null", e.getCause().getMessage());
        assertEquals(0, attempts.get());
    }

    @Test
    void aSchedulerThatRefusesTheRetryEndsTheRun() {
        scheduler.shutdown();
        CompletableFuture<String> result = retry.run(
                in(Duration.ofSeconds(5)), deadline -> CompletableFuture.failedFuture(new TimeoutException("again")));
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
        assertEquals("shut down", e.getCause().getMessage());
    }
}
