package io.lodestar.kv.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Fails requests (proposals, or linearizable reads) that did not complete within the request
 * timeout. Every request gets the same timeout, so arrival order is deadline order: a FIFO queue
 * swept periodically (by the store's tick) does the job of a timer per request at the cost of one
 * queue insert (no lock, no cancel on completion, no thread woken). Reads do not use JRaft's
 * timer per request: its ReadIndexClosure never cancels its timeout task, so under a high read
 * rate the timer holds a live task for every read of the last timeout's worth, and those outlive
 * young collections and grow the heap to its limit.
 */
final class Deadlines {
    private record Pending(long deadlineNanos, CompletableFuture<?> future) {}

    private final long timeoutMillis;
    private final Supplier<? extends RuntimeException> expired;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

    /** {@code expired} makes the failure of a request that timed out. */
    Deadlines(long timeoutMillis, Supplier<? extends RuntimeException> expired) {
        this.timeoutMillis = timeoutMillis;
        this.expired = expired;
    }

    void add(CompletableFuture<?> future) {
        queue.add(new Pending(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), future));
    }

    /** Fails every expired, still pending request; drops completed ones. */
    void expire() {
        long now = System.nanoTime();
        for (Pending head; (head = queue.peek()) != null; ) {
            if (!head.future().isDone() && head.deadlineNanos() - now > 0) {
                return;
            }
            queue.poll();
            if (!head.future().isDone()) {
                head.future().completeExceptionally(expired.get());
            }
        }
    }
}
