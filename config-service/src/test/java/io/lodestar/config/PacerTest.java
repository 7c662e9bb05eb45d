package io.lodestar.config;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PacerTest {

    @Test
    void restsTwiceAsLongAsTheStepTook() {
        long stepStart = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(10); // a step of (at least) 10 ms
        long before = System.nanoTime();
        Pacer.restAfter(stepStart);
        long restedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        assertTrue(restedMs >= 20, "rested " + restedMs + " ms after a 10 ms step");
    }

    @Test
    void aLongStepRestsNoLongerThanTheCap() {
        long stepStart = System.nanoTime() - TimeUnit.SECONDS.toNanos(10);
        long before = System.nanoTime();
        Pacer.restAfter(stepStart);
        long restedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        assertTrue(restedMs >= Pacer.MAX_REST_MS && restedMs < 10 * Pacer.MAX_REST_MS,
                "rested " + restedMs + " ms after a 10 s step; the cap is " + Pacer.MAX_REST_MS + " ms");
    }

    @Test
    void anInterruptEndsThePass() {
        Thread.currentThread().interrupt();
        try {
            assertThrows(Pacer.PassInterruptedException.class,
                    () -> Pacer.restAfter(System.nanoTime() - TimeUnit.SECONDS.toNanos(1)));
        } finally {
            Thread.interrupted();
        }
    }
}
