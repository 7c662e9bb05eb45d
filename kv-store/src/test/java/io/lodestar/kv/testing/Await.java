package io.lodestar.kv.testing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Waits with deadlines for the tests of every module, unit and black-box alike: {@link #until} polls
 * a condition until it holds, {@link #result} polls for a value, {@link #holdsFor} polls one that
 * must keep holding (a "nothing happens" assertion), {@link #firstTime} measures when something
 * first held. Failures are {@link AssertionError}s that name what was awaited.
 *
 * <p>While waiting for a condition, an exception from it counts as "not yet", and the last one is
 * shown if the deadline passes. The poll starts every {@value #FIRST_POLL_MILLIS} ms, so in-process
 * conditions are seen soon, and slows to every {@value #SLOWEST_POLL_MILLIS} ms, so a long wait on a
 * server over HTTP does not flood it.
 */
public final class Await {
    /** A condition; it may throw, which counts as "not yet". */
    public interface Check {
        boolean ok() throws Exception;
    }

    /** A probe for a value. */
    public interface Probe<T> {
        /** The awaited value, or null while it is not there yet. */
        T get() throws Exception;
    }

    /** How long {@link #until(String, Check)} waits. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private static final long FIRST_POLL_MILLIS = 10;
    private static final long SLOWEST_POLL_MILLIS = 50;
    private static final long MEASURING_POLL_MILLIS = 20;

    private Await() {}

    /** Polls {@code condition} until it holds; fails after {@link #DEADLINE}. */
    public static void until(String what, Check condition) {
        until(DEADLINE, what, condition, () -> "");
    }

    /** As {@link #until(String, Check)}; the failure also shows {@code state} as last seen. */
    public static void until(String what, Check condition, Supplier<?> state) {
        until(DEADLINE, what, condition, state);
    }

    /** Polls {@code condition} until it holds; fails after {@code deadline}. */
    public static void until(Duration deadline, String what, Check condition) {
        until(deadline, what, condition, () -> "");
    }

    /** As {@link #until(Duration, String, Check)}; the failure also shows {@code state} as last seen. */
    public static void until(Duration deadline, String what, Check condition, Supplier<?> state) {
        long end = System.nanoTime() + deadline.toNanos();
        long pause = FIRST_POLL_MILLIS;
        Exception last = null;
        while (true) {
            try {
                if (condition.ok()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within " + deadline + ": " + what + " " + state.get()
                        + (last == null ? "" : " (last error: " + last + ")"));
            }
            pause(what, pause);
            pause = Math.min(SLOWEST_POLL_MILLIS, pause * 2);
        }
    }

    /** Polls {@code probe} until it returns non-null, and returns that; fails after {@code deadline}. */
    public static <T> T result(Duration deadline, String what, Probe<T> probe) {
        Object[] found = new Object[1];
        until(deadline, what, () -> (found[0] = probe.get()) != null);
        @SuppressWarnings("unchecked")
        T t = (T) found[0];
        return t;
    }

    /**
     * Polls {@code check} for the whole of {@code duration} and fails at the first moment it is false
     * or throws: that {@code what} keeps holding, rather than that it held at one instant after a sleep.
     */
    public static void holdsFor(Duration duration, String what, Check check) {
        holdsFor(duration, what, check, () -> "");
    }

    /** As {@link #holdsFor(Duration, String, Check)}; the failure also shows {@code state} as then seen. */
    public static void holdsFor(Duration duration, String what, Check check, Supplier<?> state) {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long pause = FIRST_POLL_MILLIS;
        while (true) {
            boolean ok;
            try {
                ok = check.ok();
            } catch (Exception e) {
                throw new AssertionError("could not check " + what + ": " + e, e);
            }
            if (!ok) {
                throw new AssertionError("no longer so after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms of " + duration + ": " + what
                        + " " + state.get());
            }
            if (System.nanoTime() - end >= 0) {
                return;
            }
            pause(what, pause);
            pause = Math.min(SLOWEST_POLL_MILLIS, pause * 2);
        }
    }

    /**
     * Polls {@code check} on a background thread (at a fixed interval, for at most {@code timeout})
     * and completes with the milliseconds from {@code sinceNanos} (a System.nanoTime) to the first
     * poll that saw it true: for measuring when something happened while the test does something
     * else. Completes exceptionally on timeout.
     */
    public static CompletableFuture<Long> firstTime(Duration timeout, String what, long sinceNanos, Check check) {
        CompletableFuture<Long> when = new CompletableFuture<>();
        Thread watcher = new Thread(
                () -> {
                    long deadline = System.nanoTime() + timeout.toNanos();
                    while (System.nanoTime() < deadline && !when.isDone()) {
                        long polled = System.nanoTime();
                        try {
                            if (check.ok()) {
                                when.complete(TimeUnit.NANOSECONDS.toMillis(polled - sinceNanos));
                                return;
                            }
                        } catch (Exception e) {
                            // not yet
                        }
                        try {
                            Thread.sleep(MEASURING_POLL_MILLIS);
                        } catch (InterruptedException e) {
                            break;
                        }
                    }
                    when.completeExceptionally(
                            new AssertionError("timed out after " + timeout + " waiting for " + what));
                },
                "await " + what);
        watcher.setDaemon(true);
        watcher.start();
        return when;
    }

    private static void pause(String what, long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting on " + what, e);
        }
    }
}
