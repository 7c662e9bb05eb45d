package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Deadline-bounded waits: poll a condition until it holds or fail with what was last seen. */
final class Await {
    static final Duration DEADLINE = Duration.ofSeconds(10);

    private Await() {
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, condition, () -> "");
    }

    static void until(String what, BooleanSupplier condition, Supplier<Object> state) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + DEADLINE.toSeconds() + " s: " + what + " " + state.get());
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }
}
