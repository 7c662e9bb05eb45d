package io.lodestar.it;

import java.time.Duration;

/** Deadline-bounded polling: the only way these tests wait. */
final class Await {
    interface Check {
        boolean ok() throws Exception;
    }

    interface Probe<T> {
        /** The awaited value, or null while it is not there yet. */
        T get() throws Exception;
    }

    private Await() {}

    /**
     * Polls {@code check} on a background thread (every 20 ms, for at most {@code timeout}) and
     * completes with the milliseconds from {@code sinceNanos} (a System.nanoTime) to the first poll
     * that saw it true: for measuring when something happened while the test does something else.
     * Completes exceptionally on timeout.
     */
    static java.util.concurrent.CompletableFuture<Long> firstTime(
            Duration timeout, String what, long sinceNanos, Check check) {
        java.util.concurrent.CompletableFuture<Long> when = new java.util.concurrent.CompletableFuture<>();
        Thread watcher = new Thread(
                () -> {
                    long deadline = System.nanoTime() + timeout.toNanos();
                    while (System.nanoTime() < deadline && !when.isDone()) {
                        long polled = System.nanoTime();
                        try {
                            if (check.ok()) {
                                when.complete(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(polled - sinceNanos));
                                return;
                            }
                        } catch (Exception e) {
                            // not yet
                        }
                        try {
                            Thread.sleep(20);
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

    /** Polls {@code probe} until it returns non-null, and returns that. */
    static <T> T result(Duration timeout, String what, Probe<T> probe) {
        Object[] found = new Object[1];
        until(timeout, what, () -> (found[0] = probe.get()) != null);
        @SuppressWarnings("unchecked")
        T t = (T) found[0];
        return t;
    }

    static void until(Duration timeout, String what, Check check) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
        throw new AssertionError("timed out after " + timeout + " waiting for " + what
                + (last == null ? "" : " (last error: " + last + ")"));
    }

    /** Polls {@code check} for the whole of {@code duration}; fails at the first poll that sees it false. */
    static void holdsFor(Duration duration, String what, Check check) {
        long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (!check.ok()) {
                    throw new AssertionError("no longer true: " + what);
                }
            } catch (AssertionError e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError("could not check " + what + ": " + e, e);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted checking " + what);
            }
        }
    }
}
