package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

class NativeHeapTrimTest {
    /** The JVM's report names the change in kilobytes or bytes: "RSS+Swap: 122M->95744K (-29952K)". */
    private static final Pattern FREED = Pattern.compile("\\(-(\\d+)([KMG]?)B?\\)");

    @Test
    void memoryFreedInTheMiddleOfTheCHeapGoesBackToTheOs() {
        assumeTrue(System.getProperty("os.name").equals("Linux"), "malloc_trim is glibc's; this is "
                + System.getProperty("os.name"));
        NativeHeapTrim trim = NativeHeapTrim.ifAvailable()
                .orElseThrow(() -> new AssertionError("a JDK 17.0.9+ on Linux has System.trim_native_heap"));
        trim.trim(); // a baseline: whatever was free already goes now

        // Each compressor holds some 400 KiB of zlib state in malloc'd chunks below the mmap
        // threshold. Ending seven of every eight leaves holes that free() alone cannot return
        // (live chunks sit above them), which is what a burst of RocksDB and JIT work leaves behind.
        List<Deflater> compressors = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Deflater d = new Deflater(Deflater.BEST_COMPRESSION);
            d.setInput(new byte[1]);
            d.finish();
            d.deflate(new byte[16]);
            compressors.add(d);
        }
        for (int i = 0; i < compressors.size(); i++) {
            if (i % 8 != 7) {
                compressors.get(i).end();
            }
        }
        String report = trim.trim();
        compressors.forEach(Deflater::end);

        Matcher m = FREED.matcher(report);
        assertTrue(m.find(), "a trim reports what it returned: " + report);
        long freed = Long.parseLong(m.group(1)) << switch (m.group(2)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            default -> 0;
        };
        assertTrue(freed >= 16L << 20, "at least 16 MiB of the ~100 MiB freed should go back: " + report);
    }
}
