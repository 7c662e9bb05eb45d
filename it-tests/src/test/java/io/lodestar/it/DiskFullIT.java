package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server whose data directory's filesystem fills (a size-limited tmpfs) refuses writes with a
 * clear 503 before anything fails to reach disk, says so in its readiness, takes writes again by
 * itself once space is freed, and loses no acknowledged write, also across a kill -9.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DiskFullIT {
    private static final long RESERVE_MIB = 48;
    private static final int CONTENT_BYTES = 256 << 10;

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void aFillingDiskRefusesWritesClearlyAndRecoversWhenSpaceIsFreed() throws Exception {
        Assumptions.assumeTrue(isRoot(), "DiskFullIT mounts a tmpfs and needs root (.ci/run runs as root)");
        ServerProcess p = cluster.standalone("disk", "--disk-reserve", RESERVE_MIB + "MiB", "--snapshot-bytes", "8MiB");
        Files.createDirectories(p.dataDir);
        run("mount", "-t", "tmpfs", "-o", "size=192m", "tmpfs", p.dataDir.toString());
        try {
            cluster.start(p);
            p.awaitSettled();
            Path filler = p.dataDir.resolve("filler");
            long free = Files.getFileStore(p.dataDir).getUsableSpace();
            // leave the reserve and room for about 120 configs of 256 KiB (each costs its log entry and its row)
            fill(filler, free - ((RESERVE_MIB + 60) << 20));

            Map<String, String> acknowledged = new LinkedHashMap<>();
            Http.Response refused = null;
            for (int i = 0; i < 2_000 && refused == null; i++) {
                String dataId = "big-" + i;
                String content = randomContent();
                Http.Response r = Http.postForm(
                        p.httpAddress(),
                        "/nacos/v1/cs/configs",
                        Http.params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
                if (r.status() == 200) {
                    acknowledged.put(dataId, content);
                } else {
                    refused = r;
                }
            }
            assertTrue(refused != null, "the disk never filled: " + acknowledged.size() + " configs written");
            assertEquals(503, refused.status(), refused.body());
            assertTrue(refused.body().contains("disk nearly full"), refused.body());
            assertTrue(acknowledged.size() > 20, "acknowledged before the refusal: " + acknowledged.size());
            Http.Response ready = Http.get(p.httpAddress(), "/nacos/v1/console/health/readiness");
            assertEquals(503, ready.status(), ready.body());
            assertTrue(ready.body().contains("disk nearly full"), ready.body());
            assertTrue(p.alive(), "the server runs on");
            assertReadable(p, acknowledged);

            Files.delete(filler);
            Await.until(
                    Duration.ofSeconds(10),
                    "ready again once space is freed",
                    () -> Http.get(p.httpAddress(), "/nacos/v1/console/health/readiness")
                                    .status()
                            == 200);
            String after = randomContent();
            Http.Response r = Http.postForm(
                    p.httpAddress(),
                    "/nacos/v1/cs/configs",
                    Http.params("dataId", "after-space-freed", "group", "DEFAULT_GROUP", "content", after));
            assertEquals(200, r.status(), r.body());
            acknowledged.put("after-space-freed", after);

            cluster.restart(p);
            p.awaitSettled();
            assertReadable(p, acknowledged);
        } finally {
            if (p.alive()) {
                cluster.kill(p);
            }
            run("umount", p.dataDir.toString());
        }
    }

    private static void assertReadable(ServerProcess p, Map<String, String> acknowledged) throws IOException {
        for (Map.Entry<String, String> e : acknowledged.entrySet()) {
            Http.Response r =
                    Http.get(p.httpAddress(), "/nacos/v1/cs/configs?dataId=" + e.getKey() + "&group=DEFAULT_GROUP");
            assertEquals(200, r.status(), e.getKey() + ": " + r.body());
            assertTrue(e.getValue().equals(r.body()), e.getKey() + " reads back as written");
        }
    }

    private static String randomContent() {
        StringBuilder s = new StringBuilder(CONTENT_BYTES);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < CONTENT_BYTES; i++) {
            s.append((char) ('a' + random.nextInt(26))); // incompressible enough for LZ4
        }
        return s.toString();
    }

    /** A file of {@code bytes} real (written, not sparse) bytes. */
    private static void fill(Path file, long bytes) throws IOException {
        byte[] block = new byte[1 << 20];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            for (long written = 0; written + block.length <= bytes; written += block.length) {
                f.write(block);
            }
        }
    }

    private static boolean isRoot() {
        try {
            Process id = new ProcessBuilder("id", "-u").start();
            return new String(id.getInputStream().readAllBytes()).trim().equals("0") && id.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process proc = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(proc.getInputStream().readAllBytes());
        if (!proc.waitFor(30, TimeUnit.SECONDS) || proc.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }
}
