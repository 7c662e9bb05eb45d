package io.lodestar.kv.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits with deadlines for the tests of every module: {@link #until} polls a condition until it
 * holds, {@link #holdsFor} polls one that must keep holding (a "nothing happens" assertion). Both
 * fail with an {@link AssertionError} that names what was awaited.
 */
public final class Await {
    /** How long {@link #until(String, BooleanSupplier)} waits. */
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private static final long POLL_MILLIS = 10;

    private Await() {}

    /** Polls {@code condition} until it holds; fails after {@link #DEADLINE}. */
    public static void until(String what, BooleanSupplier condition) {
        until(DEADLINE, what, condition, () -> "");
    }

    /** As {@link #until(String, BooleanSupplier)}; the failure also shows {@code state} as last seen. */
    public static void until(String what, BooleanSupplier condition, Supplier<?> state) {
        until(DEADLINE, what, condition, state);
    }

    /** Polls {@code condition} until it holds; fails after {@code deadline}. */
    public static void until(Duration deadline, String what, BooleanSupplier condition) {
        until(deadline, what, condition, () -> "");
    }

    /** As {@link #until(Duration, String, BooleanSupplier)}; the failure also shows {@code state} as last seen. */
    public static void until(Duration deadline, String what, BooleanSupplier condition, Supplier<?> state) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within " + deadline + ": " + what + " " + state.get());
            }
            pause(what);
        }
    }

    /**
     * Polls {@code check} for the whole of {@code duration} and fails at the first moment it is false:
     * that {@code what} keeps holding, rather than that it held at one instant after a sleep.
     */
    public static void holdsFor(Duration duration, String what, BooleanSupplier check) {
        holdsFor(duration, what, check, () -> "");
    }

    /** As {@link #holdsFor(Duration, String, BooleanSupplier)}; the failure also shows {@code state} as then seen. */
    public static void holdsFor(Duration duration, String what, BooleanSupplier check, Supplier<?> state) {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        while (true) {
            if (!check.getAsBoolean()) {
                throw new AssertionError("no longer so after "
                        + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms of " + duration + ": " + what
                        + " " + state.get());
            }
            if (System.nanoTime() - end >= 0) {
                return;
            }
            pause(what);
        }
    }

    private static void pause(String what) {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting on " + what, e);
        }
    }
}
