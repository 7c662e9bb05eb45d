package io.lodestar.kv.raft;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Fails requests (proposals, or linearizable reads) that did not complete within the request
 * timeout. Every request gets the same timeout, so arrival order is deadline order: a FIFO queue
 * swept periodically does the job of a timer per request at the cost of one queue insert (no lock,
 * no cancel on completion). A timer per request is what this replaces for reads: JRaft's
 * ReadIndexClosure never cancels its timeout task, so at 40,000 reads/s its timer held some 200,000
 * live tasks (50 MiB that outlive young collections) and the heap grew to its limit.
 *
 * <p>The sweep runs only while something is queued: the first request after a quiet spell arms it,
 * and it stops once it finds the queue empty. An idle node wakes no thread for it (a fixed 50 ms
 * sweep was 20 wake-ups a second, each costing the idle machine CPU).
 */
final class Deadlines {
    private record Pending(long deadlineNanos, CompletableFuture<?> future) {}

    private final long timeoutMillis;
    private final Supplier<? extends RuntimeException> expired;
    private final ScheduledExecutorService timer;
    private final long sweepMillis;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean armed = new AtomicBoolean();

    /**
     * {@code expired} makes the failure of a request that timed out; {@code timer} runs the sweep
     * every {@code sweepMillis} while requests are queued, so a request fails at most that late.
     */
    Deadlines(long timeoutMillis, Supplier<? extends RuntimeException> expired, ScheduledExecutorService timer,
              long sweepMillis) {
        this.timeoutMillis = timeoutMillis;
        this.expired = expired;
        this.timer = timer;
        this.sweepMillis = sweepMillis;
    }

    void add(CompletableFuture<?> future) {
        queue.add(new Pending(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis), future));
        // the plain read first: under load the sweep is armed, and a CAS per request would contend
        if (!armed.get() && armed.compareAndSet(false, true)) {
            scheduleSweep();
        }
    }

    private void scheduleSweep() {
        try {
            timer.schedule(this::sweep, sweepMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the store is closing: JRaft's shutdown fails the requests still pending
        }
    }

    private void sweep() {
        expire();
        if (!queue.isEmpty()) {
            scheduleSweep();
            return;
        }
        armed.set(false);
        // an add() between the emptiness check and the disarm saw the sweep armed and left it to us
        if (!queue.isEmpty() && armed.compareAndSet(false, true)) {
            scheduleSweep();
        }
    }

    /** Fails every expired, still pending request; drops completed ones. */
    private void expire() {
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
