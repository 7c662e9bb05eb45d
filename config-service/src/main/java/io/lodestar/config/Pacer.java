package io.lodestar.config;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Spreads a housekeeping pass out in time so that the requests it shares the Raft pipeline and the
 * CPU with keep their latency: after each step (a page scanned, a batch of deletes written) the pass
 * rests twice as long as the step took, at most {@value #MAX_REST_MS} ms.
 *
 * <p>Why: the pipeline is serial (log append, fsync, apply), so a publish that arrives while a
 * batch of deletes is in it waits for the whole batch; retention after a burst of 130,000 publishes
 * ran 127 batches of 1,000 back to back and publishes made meanwhile took 3-9 ms instead of 0.8 ms.
 * Small batches with rests between keep that wait to a fraction of a millisecond, and still delete
 * faster than the fastest sustained publishing.
 */
public final class Pacer {
    static final long MAX_REST_MS = 50;
    private static final long MAX_REST_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_REST_MS);

    private Pacer() {}

    /**
     * Rests after a step begun at {@code stepStartNanos} ({@link System#nanoTime}). An interrupt
     * (the job is closing) ends the pass with {@link PassInterruptedException}.
     */
    public static void restAfter(long stepStartNanos) {
        long rest = Math.min(MAX_REST_NANOS, 2 * (System.nanoTime() - stepStartNanos));
        long until = System.nanoTime() + rest;
        for (long left = rest; left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) {
                throw new PassInterruptedException();
            }
        }
    }

    /** A pass stopped because its job is closing; nothing to report. */
    public static final class PassInterruptedException extends RuntimeException {
        PassInterruptedException() {
            super("housekeeping pass interrupted", null, false, false);
        }
    }
}
