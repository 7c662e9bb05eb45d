package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process running a Raft node can still be profiled: JFR's sampler suspends threads with
 * SIGUSR2, which JRaft would otherwise take for itself (see {@link SuspendSignalGuard}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuspendSignalGuardTest {
    private static final int SAMPLES_WANTED = 20;

    @TempDir
    Path dir;

    @Test
    void aProfilerStillSamplesThreadsOnceANodeHasStarted() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            int leader = c.awaitStable();
            c.put(leader, "k", "v");
            AtomicInteger samples = new AtomicInteger();
            try (RecordingStream profile = new RecordingStream()) {
                profile.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
                profile.onEvent("jdk.ExecutionSample", e -> samples.incrementAndGet());
                profile.startAsync();
                // This thread stays on a CPU, in Java code, so every sampling period has a running
                // thread to sample. Only the loop's own arithmetic: a loop around System.nanoTime()
                // spends most of its time in the vDSO clock (kvm-clock: 27 ns a call), where JFR
                // cannot walk the stack and drops the sample (4 of ~1,000 kept in 10 s here).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                long spin = 1;
                while (samples.get() < SAMPLES_WANTED && System.nanoTime() < deadline) {
                    for (int i = 0; i < 1_000_000; i++) {
                        spin = spin * 6364136223846793005L + 1442695040888963407L;
                    }
                }
                assertTrue(
                        samples.get() >= SAMPLES_WANTED,
                        "JFR took " + samples.get() + " execution samples in 10 s" + " of a running thread (state "
                                + spin + "); expected at least " + SAMPLES_WANTED);
            }
        }
    }
}
