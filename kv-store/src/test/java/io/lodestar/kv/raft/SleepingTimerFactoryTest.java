package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.JRaftUtils;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
    private static final String[] TIMER_THREADS = {
        "JRaft-ElectionTimer",
        "JRaft-VoteTimer",
        "JRaft-StepDownTimer",
        "JRaft-SnapshotTimer",
        "read-index.timeout.scanner"
    };

    @TempDir
    Path dir;

    @Test
    void jraftUsesTheSleepingTimers() {
        assertInstanceOf(SleepingTimerFactory.class, JRaftUtils.raftTimerFactory());
    }

    /**
     * The wheel's threads wake every millisecond even with nothing due (about 1,000 wake-ups a
     * second each); sleeping timers wake only when something is due: the step-down check twice per
     * election timeout, little else. Wake-ups (voluntary context switches, from /proc), not CPU
     * time: how long a wake-up takes depends on how warm the JIT is and how busy the machine is,
     * how many there are does not. A write and a linearizable read first, so every timer exists.
     */
    @Test
    void anIdleLeadersTimersWakeOnlyWhenSomethingIsDue() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            int leader = c.awaitStable();
            c.put(leader, "k", "v");
            c.node(leader).linearizable().get(10, TimeUnit.SECONDS);
            Map<String, Long> before = timerWakeups();
            assertFalse(before.isEmpty(), "no JRaft timer thread found");
            TimeUnit.SECONDS.sleep(2); // the interval the wake-ups are counted over, not a wait for a condition
            Map<String, Long> after = timerWakeups();
            long wakeups = 0;
            StringBuilder perThread = new StringBuilder();
            for (Map.Entry<String, Long> e : after.entrySet()) {
                long n = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                wakeups += n;
                perThread.append(", ").append(e.getKey()).append(": ").append(n);
            }
            assertTrue(wakeups < 100, "the idle timers woke " + wakeups + " times in 2 s" + perThread);
            assertEquals("v", c.value(leader, "k"));
        }
    }

    /** Voluntary context switches per timer thread of this JVM, keyed by "name (tid)". */
    private static Map<String, Long> timerWakeups() throws IOException {
        Map<String, Long> wakeups = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    if (!isTimer(name)) {
                        continue;
                    }
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            wakeups.put(
                                    name + " (" + task.getFileName() + ")",
                                    Long.parseLong(line.substring(line.indexOf(':') + 1)
                                            .trim()));
                        }
                    }
                } catch (NoSuchFileException e) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return wakeups;
    }

    /** {@code comm} holds a thread's name cut to 15 characters. */
    private static boolean isTimer(String comm) {
        for (String prefix : TIMER_THREADS) {
            if (comm.startsWith(prefix.substring(0, Math.min(15, prefix.length())))) {
                return true;
            }
        }
        return false;
    }
}
