package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hundreds of real targets are probed by a handful of threads, not a thread per target. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HealthCheckerScaleTest {
    private static final int TARGETS = 300;

    @Test
    void threeHundredTargetsAreProbedByAFewThreads() throws Exception {
        List<ServerSocket> listeners = new ArrayList<>();
        FakeRegistry registry = new FakeRegistry();
        ProbeSettings settings = ProbeSettings.tcp()
                .withTiming(Duration.ofSeconds(2), Duration.ofMillis(500))
                .withThresholds(3, 1);
        try {
            for (int i = 0; i < TARGETS; i++) {
                // the kernel completes connects into the backlog: nobody needs to accept
                ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                listeners.add(s);
                registry.put(new ProbeTarget("t" + i, "127.0.0.1", s.getLocalPort(), false, settings));
            }
            int threadsBefore = healthThreads();
            try (HealthChecker checker = new HealthChecker(
                    registry, registry, () -> true, ProbeScope.parse("127.0.0.0/8"), Duration.ofMillis(20), 64)) {
                checker.start();
                Await.until(
                        "every target probed and flipped healthy",
                        () -> registry.flips().size() >= TARGETS,
                        () -> registry.flips().size());
                int threads = healthThreads() - threadsBefore;
                assertTrue(threads <= 4, threads + " health threads for " + TARGETS + " targets");
            }
        } finally {
            for (ServerSocket s : listeners) {
                s.close();
            }
        }
    }

    private static int healthThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("health-") || t.getName().startsWith("HttpClient-"))
                .count();
    }
}
