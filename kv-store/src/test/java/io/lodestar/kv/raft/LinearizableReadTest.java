package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import com.alipay.sofa.jraft.util.timer.DefaultTimer;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What a linearizable read costs once it has been answered. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LinearizableReadTest {
    @TempDir
    Path dir;

    /**
     * JRaft's ReadIndexClosure schedules a timeout task per read and never cancels it: at tens of
     * thousands of reads a second (every unchanged persistent re-registration makes one) the tasks
     * of the last request-timeout's worth piled up, outlived young collections and grew the heap
     * to its limit. The store bounds its reads itself instead, so answered reads leave nothing.
     */
    @Test
    void answeredReadsLeaveNoTimeoutTaskInJraftsTimer() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 1)) {
            int leader = c.awaitStable();
            RaftKvStore node = c.node(leader);
            int reads = 20_000;
            int inFlight = 1_000; // JRaft refuses reads beyond its queue (16,384) as "busy"
            for (int done = 0; done < reads; done += inFlight) {
                CompletableFuture<?>[] batch = new CompletableFuture<?>[inFlight];
                for (int i = 0; i < inFlight; i++) {
                    batch[i] = node.linearizable();
                }
                CompletableFuture.allOf(batch).get(30, TimeUnit.SECONDS);
            }
            int pending = readIndexTimerQueue().size();
            assertTrue(pending < 100, pending + " timeout tasks still queued after " + reads + " answered reads");
        }
    }

    /** The executor behind JRaft's static read-index timer (created on first use, by the readiness probe here). */
    private static java.util.concurrent.BlockingQueue<Runnable> readIndexTimerQueue() throws Exception {
        Class<?> scanner = Class.forName(ReadIndexClosure.class.getName() + "$TimeoutScanner");
        Field timer = scanner.getDeclaredField("TIMER");
        timer.setAccessible(true);
        DefaultTimer t = (DefaultTimer) timer.get(null);
        Field executor = DefaultTimer.class.getDeclaredField("scheduledExecutorService");
        executor.setAccessible(true);
        return ((ScheduledThreadPoolExecutor) executor.get(t)).getQueue();
    }
}
