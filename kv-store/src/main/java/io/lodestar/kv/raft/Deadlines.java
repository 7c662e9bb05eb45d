package io.lodestar.kv.raft;

import io.lodestar.kv.WriteOutcomeUnknownException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Fails proposals that were not committed within the request timeout. Every proposal gets the
 * same timeout, so arrival order is deadline order: a FIFO queue swept periodically does the job
 * of a timer per write at the cost of one queue insert (no lock, no cancel on completion).
 */
final class Deadlines {
    private record Pending(long deadlineNanos, CompletableFuture<?> future) {}

    private final long timeoutMillis;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

    Deadlines(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    void add(CompletableFuture<?> future) {
        queue.add(new Pending(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), future));
    }

    /** Fails every expired, still pending proposal; drops completed ones. */
    void expire() {
        long now = System.nanoTime();
        for (Pending head; (head = queue.peek()) != null; ) {
            if (!head.future().isDone() && head.deadlineNanos() - now > 0) {
                return;
            }
            queue.poll();
            if (!head.future().isDone()) {
                head.future().completeExceptionally(
                        new WriteOutcomeUnknownException("not committed within " + timeoutMillis + " ms"));
            }
        }
    }
}
