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
     * In a JVM of its own with only {@code -Xmx} and an initial size set, as the server runs:
     * settling with a small live set leaves the heap at its floor, neither at its initial size nor
     * at a few MiB (G1 would then grow it by half the initial size at the next burst); and a heap
     * grown big shrinks back to the floor once its live set is gone.
     */
    @Test
    void settlingLeavesTheHeapAtItsFloorAndABigHeapShrinksBackToIt() throws Exception {
        Map<String, Long> out = runProbe();
        long floor = out.get("initial") / 4;
        assertTrue(out.get("small") >= floor,
                "a small live set shrank the heap to " + out.get("small") / MIB + " MiB, below the floor " + floor / MIB);
        // near the floor (the floor's margin and region rounding put it some 10-25 MiB above), far
        // from the initial 256 MiB that a heap left unsettled keeps
        assertTrue(out.get("small") < 2 * floor, "settling left the heap at " + out.get("small") / MIB
                + " MiB with 8 MiB live; floor " + floor / MIB);
        assertTrue(out.get("big") > out.get("initial"), "the probe did not grow the heap: " + out);
        assertTrue(out.get("after") < out.get("big") / 2,
                "with the big live set gone the heap stayed at " + out.get("after") / MIB + " MiB: " + out);
        assertTrue(out.get("after") >= floor, "the heap shrank below the floor: " + out);
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

    /** The child JVM: committed heap with a small live set (settled), a big one, and a small one again (settled). */
    public static final class Probe {
        static Object live;

        public static void main(String[] args) {
            HeapReturn.enable();
            System.out.println("initial=" + Long.parseLong(ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("InitialHeapSize").getValue()));
            live = new byte[8 << 20];
            HeapReturn.settle();
            System.out.println("small=" + committed());
            byte[][] big = new byte[1600][]; // 400 MiB in objects below G1's humongous size
            for (int i = 0; i < big.length; i++) {
                big[i] = new byte[256 << 10];
            }
            live = big;
            big = null; // the local would keep it reachable
            System.gc();
            System.out.println("big=" + committed());
            live = new byte[8 << 20];
            HeapReturn.settle();
            System.out.println("after=" + committed());
        }

        private static long committed() {
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
        }

    }
}
