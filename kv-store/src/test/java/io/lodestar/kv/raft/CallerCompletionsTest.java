package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A relayed future completes as the inner one did, on the completion thread, with the cause itself. */
class CallerCompletionsTest {
    private final CallerCompletions completions = new CallerCompletions();

    @Test
    void relayedValueArrivesOnTheCompletionThread() throws Exception {
        CompletableFuture<String> inner = new CompletableFuture<>();
        CompletableFuture<String> ran =
                completions.relay(inner).thenApply(v -> Thread.currentThread().getName());
        Thread foreign = new Thread(() -> inner.complete("x"), "JRaft-FSMCaller-Disruptor-0");
        foreign.start();
        assertEquals(CallerCompletions.THREAD, ran.get(5, TimeUnit.SECONDS));
        completions.shutdown();
    }

    @Test
    void relayedFailureKeepsItsCause() {
        CompletableFuture<String> inner = new CompletableFuture<>();
        CompletableFuture<String> relayed = completions.relay(inner.thenApply(v -> v));
        IllegalStateException cause = new IllegalStateException("refused");
        inner.completeExceptionally(cause);
        ExecutionException e = assertThrows(ExecutionException.class, () -> relayed.get(5, TimeUnit.SECONDS));
        assertSame(cause, e.getCause());
        completions.shutdown();
    }

    @Test
    void afterShutdownAFutureStillCompletesOffTheCompletingThread() throws Exception {
        completions.shutdown();
        CompletableFuture<String> inner = new CompletableFuture<>();
        CompletableFuture<String> ran =
                completions.relay(inner).thenApply(v -> Thread.currentThread().getName());
        Thread foreign = new Thread(() -> inner.complete("x"), "JRaft-FSMCaller-Disruptor-0");
        foreign.start();
        assertNotEquals("JRaft-FSMCaller-Disruptor-0", ran.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aCompleteFutureIsReturnedAsItIs() {
        CompletableFuture<String> done = CompletableFuture.completedFuture("x");
        assertSame(done, completions.relay(done));
        completions.shutdown();
    }
}
