package io.lodestar.it;

import java.time.Duration;

/** Deadline-bounded polling: the only way these tests wait. */
final class Await {
    interface Check {
        boolean ok() throws Exception;
    }

    private Await() {}

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
}
