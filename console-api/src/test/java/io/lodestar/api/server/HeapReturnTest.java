package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HeapReturnTest {
    private static final long MIB = 1L << 20;

    @Test
    void theShrinkRatioStopsAShrinkAtTheFloorUntilTheLiveHeapNearsIt() {
        long floor = 100 * MIB;
        assertEquals(99, HeapReturn.maxFreePercent(0, floor), "a nearly empty heap keeps the floor");
        assertEquals(90, HeapReturn.maxFreePercent(10 * MIB, floor));
        assertEquals(50, HeapReturn.maxFreePercent(50 * MIB, floor));
        assertEquals(30, HeapReturn.maxFreePercent(70 * MIB, floor), "from 70 % of the floor on, 30 % free");
        assertEquals(30, HeapReturn.maxFreePercent(400 * MIB, floor));
    }

    /**
     * In a JVM of its own with only {@code -Xmx} and an initial size set, as the server runs: a
     * collection of a small live set leaves the heap at its floor, not at a few MiB (G1 would then
     * grow it by half the initial size at the next burst); and a heap grown big still shrinks once
     * its live set is gone.
     */
    @Test
    void aCollectionLeavesTheHeapAtItsFloorAndABigHeapStillShrinks() throws Exception {
        Map<String, Long> out = runProbe();
        long floor = out.get("initial") / 4;
        assertTrue(out.get("small") >= floor,
                "a small live set shrank the heap to " + out.get("small") / MIB + " MiB, below the floor " + floor / MIB);
        assertTrue(out.get("big") > out.get("initial"), "the probe did not grow the heap: " + out);
        assertTrue(out.get("after") < out.get("big") / 2,
                "with the big live set gone the heap stayed at " + out.get("after") / MIB + " MiB: " + out);
    }

    private static Map<String, Long> runProbe() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx1g", "-XX:InitialHeapSize=256m",
                "-XX:+UseG1GC", "-cp", ManagementFactory.getRuntimeMXBean().getClassPath(), Probe.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe did not finish");
        assertEquals(0, p.exitValue(), output);
        Map<String, Long> values = new HashMap<>();
        for (String line : output.split("\n")) {
            String[] kv = line.trim().split("=");
            if (kv.length == 2 && kv[1].matches("\\d+")) {
                values.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        assertEquals(4, values.size(), output);
        return values;
    }

    /** The child JVM: committed heap after full collections of a small, a big and again a small live set. */
    public static final class Probe {
        static Object live;

        public static void main(String[] args) {
            HeapReturn.enable();
            System.out.println("initial=" + Long.parseLong(ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("InitialHeapSize").getValue()));
            live = new byte[8 << 20];
            System.out.println("small=" + committedAfterGc());
            byte[][] big = new byte[1600][]; // 400 MiB in objects below G1's humongous size
            for (int i = 0; i < big.length; i++) {
                big[i] = new byte[256 << 10];
            }
            live = big;
            big = null; // the local would keep it reachable
            System.out.println("big=" + committedAfterGc());
            live = new byte[8 << 20];
            System.out.println("after=" + committedAfterGc());
        }

        /** A full collection, then another once HeapReturn has seen the first, which shrinks with its ratio. */
        private static long committedAfterGc() {
            long seen = HeapReturn.collectionsSeen();
            System.gc();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (HeapReturn.collectionsSeen() == seen) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("HeapReturn never heard of the collection");
                }
                Thread.onSpinWait();
            }
            System.gc();
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
        }
    }
}
