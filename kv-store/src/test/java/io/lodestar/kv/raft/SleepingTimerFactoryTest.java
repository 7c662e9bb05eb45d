package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.JRaftUtils;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An idle node's Raft timers sleep until their deadlines instead of ticking every millisecond. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SleepingTimerFactoryTest {
    private static final String[] TIMER_THREADS = {"JRaft-ElectionTimer", "JRaft-VoteTimer", "JRaft-StepDownTimer",
            "JRaft-SnapshotTimer", "read-index.timeout.scanner"};

    @TempDir
    Path dir;

    @Test
    void jraftUsesTheSleepingTimers() {
        assertInstanceOf(SleepingTimerFactory.class, JRaftUtils.raftTimerFactory());
    }

    /**
     * The wheel's threads spend tens of milliseconds of CPU per second between them even with
     * nothing due; sleeping timers spend next to none. CPU time, not wall time, so a busy machine
     * does not make this fail. A write and a linearizable read first, so every timer exists.
     */
    @Test
    void anIdleLeaderSpendsNoCpuOnItsTimers() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            int leader = c.awaitStable();
            c.put(leader, "k", "v");
            c.node(leader).linearizable().get(10, TimeUnit.SECONDS);
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            Map<Long, Long> before = timerCpu(threads);
            assertFalse(before.isEmpty(), "no JRaft timer thread found");
            TimeUnit.SECONDS.sleep(2); // the interval the CPU use is measured over, not a wait for a condition
            Map<Long, Long> after = timerCpu(threads);
            long spentNanos = 0;
            for (Map.Entry<Long, Long> e : after.entrySet()) {
                spentNanos += e.getValue() - before.getOrDefault(e.getKey(), 0L);
            }
            assertTrue(spentNanos < TimeUnit.MILLISECONDS.toNanos(10),
                    "the idle timers spent " + spentNanos / 1_000 + " µs of CPU in 2 s");
            assertEquals("v", c.value(leader, "k"));
        }
    }

    private static Map<Long, Long> timerCpu(ThreadMXBean threads) {
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && isTimer(info.getThreadName())) {
                long nanos = threads.getThreadCpuTime(info.getThreadId());
                if (nanos >= 0) {
                    cpu.put(info.getThreadId(), nanos);
                }
            }
        }
        return cpu;
    }

    private static boolean isTimer(String name) {
        for (String prefix : TIMER_THREADS) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
