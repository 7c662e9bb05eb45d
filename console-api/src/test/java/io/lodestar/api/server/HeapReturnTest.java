package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
     * at a few MiB (G1 would then grow it by half the initial size at the next burst); a concurrent
     * cycle under load whose remark frees much of the heap does not shrink it (it did, below the
     * floor, when the shrink ratio came from the collection before the remark); and a heap grown big
     * shrinks back to the floor once the JVM idles.
     */
    @Test
    void theHeapSettlesAtItsFloorHoldsUnderLoadAndShrinksBackWhenIdle(@TempDir Path dir) throws Exception {
        Map<String, Long> out = runProbe(dir.resolve("gc.log"));
        long floor = out.get("initial") / 4;
        assertTrue(out.get("small") >= floor,
                "a small live set shrank the heap to " + out.get("small") / MIB + " MiB, below the floor " + floor / MIB);
        // near the floor (the floor's margin and region rounding put it some 10-25 MiB above), far
        // from the initial 256 MiB that a heap left unsettled keeps
        assertTrue(out.get("small") < 2 * floor, "settling left the heap at " + out.get("small") / MIB
                + " MiB with 8 MiB live; floor " + floor / MIB);
        assertTrue(out.get("cycled") >= floor, "a concurrent cycle under load shrank the heap to "
                + out.get("cycled") / MIB + " MiB, below the floor " + floor / MIB + ": " + out);
        assertTrue(out.get("big") > out.get("initial"), "the probe did not grow the heap: " + out);
        assertTrue(out.get("idle") < out.get("big") / 2,
                "with the big live set gone the idle heap stayed at " + out.get("idle") / MIB + " MiB: " + out);
        assertTrue(out.get("idle") >= floor, "the idle heap shrank below the floor: " + out);
    }

    private static Map<String, Long> runProbe(Path gcLog) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx1g", "-XX:InitialHeapSize=256m",
                "-XX:+UseG1GC", "-Xlog:gc:file=" + gcLog,
                "-cp", ManagementFactory.getRuntimeMXBean().getClassPath(), Probe.class.getName(), gcLog.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "the probe did not finish");
        assertEquals(0, p.exitValue(), output + Files.readString(gcLog));
        Map<String, Long> values = new HashMap<>();
        for (String line : output.split("\n")) {
            String[] kv = line.trim().split("=");
            if (kv.length == 2 && kv[1].matches("\\d+")) {
                values.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        assertEquals(5, values.size(), output + Files.readString(gcLog));
        return values;
    }

    /** The child JVM: committed heap settled, after a concurrent cycle under load, grown big, and idle again. */
    public static final class Probe {
        static Object live;
        static Object sink;

        public static void main(String[] args) throws IOException {
            Path gcLog = Path.of(args[0]);
            HeapReturn.enable();
            // A periodic collection after 300 ms without one, where the server waits a minute. Set
            // here, not on the command line: a JVM slow to reach main() (a loaded machine) then
            // ran one before enable(), and its remark, at G1's default ratio, shrank 256 MiB to 20.
            ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                    .setVMOption("G1PeriodicGCInterval", "300");
            System.out.println("initial=" + Long.parseLong(ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("InitialHeapSize").getValue()));
            live = new byte[8 << 20];
            HeapReturn.settle();
            System.out.println("small=" + committed());

            // Load that leaves garbage only a concurrent cycle finds: humongous Object[] arrays (JDK
            // 17 reclaims dead humongous primitive arrays at young collections, not these), paced so
            // marking keeps up. The cycle starts once they fill the heap to G1's threshold; its
            // remark frees them all.
            long remarks = remarks(gcLog);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (remarks(gcLog) == remarks) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no concurrent cycle within 30 s");
                }
                sink = new Object[1 << 19]; // 2 MiB
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            sink = null;
            System.out.println("cycled=" + committed());

            byte[][] big = new byte[1600][]; // 400 MiB in objects below G1's humongous size
            for (int i = 0; i < big.length; i++) {
                big[i] = new byte[256 << 10];
            }
            live = big;
            big = null; // the local would keep it reachable
            long bigCommitted = committed();
            System.out.println("big=" + bigCommitted);
            live = new byte[8 << 20];
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (committed() >= bigCommitted / 2 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // idle: the periodic collection shrinks
            }
            System.out.println("idle=" + committed());
        }

        private static long remarks(Path gcLog) throws IOException {
            return Files.readAllLines(gcLog).stream().filter(l -> l.contains("Pause Remark")).count();
        }

        private static long committed() {
            return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
        }
    }
}
