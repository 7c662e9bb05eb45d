package io.lodestar.api.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps G1's heap small under load and gives unused heap back to the OS once load drops (JEP 346):
 * the heap is sized to its live set once start-up is over and again whenever the server idles with
 * a heap much bigger than that, to 30 % free but never below a floor of a quarter of the initial
 * heap; under load it only grows, by G1's own rules.
 *
 * <p>Why the floor: G1 grows a heap smaller than a quarter of its initial size by half the distance
 * to the initial size at once (JDK 17's {@code G1HeapSizingPolicy}); above it, by small steps scaled
 * to how far collections overrun their time budget. The initial size is 1/64 of the machine's
 * memory (384 MiB on 24 GiB), so a heap shrunk to 40 MiB at start-up jumped to 210 MiB at the first
 * burst of requests and stayed there, where about 110 MiB is enough for the same load.
 *
 * <p>Why G1 itself never shrinks ({@code MaxHeapFreeRatio} 99): it shrinks at a concurrent cycle's
 * remark and at a full collection, to that ratio free of the heap used then, and the ratio can only
 * be set from what the collection before left used, which counts the garbage in the old generation
 * that marking then frees. A remark under load shrank a 125 MiB heap to 85 MiB, below the floor,
 * and the next young collection jumped it to 232 MiB; at an idle periodic cycle after a burst, a
 * heap of 860 MiB shrank to 36. Instead, when a periodic collection (G1 starts one after a minute
 * without any) finds the heap oversized, {@link #settle()} runs: two full collections, the first
 * to learn what is live, the second to shrink to it.
 *
 * <p>Without this a server started with only {@code -Xmx} keeps whatever heap a burst once needed
 * resident for good. Flags an operator set on the command line are left alone; the flags are
 * manageable, so setting them at run time is supported.
 */
final class HeapReturn {
    private static final Logger LOG = LoggerFactory.getLogger(HeapReturn.class);
    /** The free share a shrink leaves once the live heap is past the floor. */
    static final int MAX_FREE_PERCENT = 30;
    /** Above the quarter itself: G1's rule compares capacity with it strictly, in whole regions. */
    private static final long FLOOR_MARGIN_BYTES = 8L << 20;
    /** The ratio at which G1 shrinks nothing: the heap would have to be 99 % free. */
    private static final int NO_SHRINK_PERCENT = 99;
    private static final String PERIODIC_CAUSE = "G1 Periodic Collection";
    private static final AtomicBoolean ENABLED = new AtomicBoolean();
    private static volatile HeapReturn installed;

    private final HotSpotDiagnosticMXBean vm;
    private final long floorBytes;
    private final Set<String> heapPools;
    private final AtomicBoolean settling = new AtomicBoolean();

    private HeapReturn(HotSpotDiagnosticMXBean vm, long floorBytes) {
        this.vm = vm;
        this.floorBytes = floorBytes;
        this.heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    }

    /** Once per process, first thing at start-up; later calls do nothing. */
    static void enable() {
        if (!ENABLED.compareAndSet(false, true)) {
            return;
        }
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (!"true".equals(vm.getVMOption("UseG1GC").getValue())) {
                return;
            }
            // a minute: each periodic cycle's remark pauses the server 5-10 ms (class unloading),
            // so a lightly loaded server is not paused every 15 s to return memory it may need again
            setIfDefault(vm, "G1PeriodicGCInterval", "60000");
            setIfDefault(vm, "MinHeapFreeRatio", "10");
            if (vm.getVMOption("MaxHeapFreeRatio").getOrigin() != VMOption.Origin.DEFAULT) {
                return;
            }
            long initial = Long.parseLong(vm.getVMOption("InitialHeapSize").getValue());
            long max = Runtime.getRuntime().maxMemory();
            HeapReturn sizing = new HeapReturn(vm, Math.min(initial / 4 + FLOOR_MARGIN_BYTES, max));
            sizing.setMaxFreePercent(NO_SHRINK_PERCENT);
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter emitter) {
                    emitter.addNotificationListener(sizing::onNotification, null, null);
                }
            }
            installed = sizing;
        } catch (RuntimeException e) {
            LOG.debug("cannot tune heap return: {}", e.toString()); // memory use only, not correctness
        }
    }

    /**
     * Sizes the heap to what is live now: a full collection with shrinking off finds the live set,
     * then a second shrinks the heap to max(live / 0.7, floor). Two collections of a heap of
     * start-up's size take some 10-30 ms.
     */
    static void settle() {
        HeapReturn sizing = installed;
        if (sizing != null) {
            sizing.resize();
        }
    }

    private synchronized void resize() {
        System.gc(); // shrinking is off (NO_SHRINK_PERCENT): this only finds the live set
        long live = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        setMaxFreePercent(maxFreePercent(live, floorBytes));
        System.gc();
        setMaxFreePercent(NO_SHRINK_PERCENT);
    }

    /**
     * The {@code MaxHeapFreeRatio} that makes a shrink stop at the floor while {@code usedBytes} is
     * below 70 % of it: 100 − 100 × used / floor, between 30 and 99.
     */
    static int maxFreePercent(long usedBytes, long floorBytes) {
        long percent = 100 - (100 * usedBytes) / floorBytes;
        return (int) Math.max(MAX_FREE_PERCENT, Math.min(NO_SHRINK_PERCENT, percent));
    }

    /**
     * Whether a heap of {@code committedBytes} with {@code usedBytes} after a collection (an upper
     * bound of the live set) would shrink by more than a fifth: settling costs two full collections.
     */
    boolean oversized(long usedBytes, long committedBytes) {
        long target = Math.max(floorBytes, usedBytes * 100 / (100 - MAX_FREE_PERCENT));
        return committedBytes > target + target / 4;
    }

    private void onNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (!PERIODIC_CAUSE.equals(info.getGcCause())) {
            return;
        }
        long used = 0;
        long committed = 0;
        for (var pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) { // metaspace and code are in the map too
                MemoryUsage usage = pool.getValue();
                used += usage.getUsed();
                committed += usage.getCommitted();
            }
        }
        if (oversized(used, committed) && settling.compareAndSet(false, true)) {
            resizeInBackground(committed);
        }
    }

    /** Not on the thread that delivers notifications: it serves the whole JVM. */
    private void resizeInBackground(long committedBefore) {
        Thread t = new Thread(() -> {
            try {
                resize();
                LOG.info("idle: heap resized from {} MiB to {} MiB committed", committedBefore >> 20,
                        ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() >> 20);
            } finally {
                settling.set(false);
            }
        }, "heap-return");
        t.setDaemon(true);
        t.start();
    }

    /** Called at start-up, before any notification can arrive, and under {@link #resize()}'s lock. */
    private void setMaxFreePercent(int percent) {
        try {
            vm.setVMOption("MaxHeapFreeRatio", Integer.toString(percent));
        } catch (RuntimeException e) {
            LOG.debug("cannot set MaxHeapFreeRatio {}: {}", percent, e.toString());
        }
    }

    private static void setIfDefault(HotSpotDiagnosticMXBean vm, String flag, String value) {
        if (vm.getVMOption(flag).getOrigin() == VMOption.Origin.DEFAULT) {
            vm.setVMOption(flag, value);
        }
    }
}
