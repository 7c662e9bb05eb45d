package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower whose disk fills (a size-limited tmpfs) does not halt: it refuses entries before its
 * log append could hit ENOSPC, its readiness says why, the other two go on committing, and once
 * space is freed it catches up by itself and ends identical. Without the refusal JRaft halts such
 * a node until a restart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FollowerDiskFullTest {
    private static final long RESERVE = 32L << 20;
    private static final int FULL = 2;

    @TempDir
    Path dir;

    @Test
    void aFollowerWithAFullDiskRefusesEntriesAndCatchesUpOnceSpaceIsFreed() throws Exception {
        Assumptions.assumeTrue(isRoot(), "mounts a tmpfs: needs root (.ci/run runs as root)");
        TestCluster c =
                TestCluster.create(dir, 3, (i, config) -> i == FULL ? config.withDiskReserveBytes(RESERVE) : config);
        Path fullDir = c.dataDir(FULL);
        Files.createDirectories(fullDir);
        run("mount", "-t", "tmpfs", "-o", "size=128m", "tmpfs", fullDir.toString());
        try (c) {
            for (int i = 0; i < 3; i++) {
                c.startNode(i);
            }
            int leader = c.awaitStable();
            while (leader == FULL) { // a graceful stop hands leadership to another member
                c.stopNode(FULL);
                c.startNode(FULL);
                leader = c.awaitStable();
            }
            c.putMany(leader, "before", 50);
            c.awaitIdentical();

            Path ballast = fullDir.resolve("ballast");
            fill(ballast, Files.getFileStore(fullDir).getUsableSpace() - RESERVE + (4L << 20));
            c.putMany(leader, "while-full", 200);
            RaftKvStore full = c.node(FULL);
            Await.until(
                    Duration.ofSeconds(5),
                    "the full node to say why",
                    () -> !full.readiness().ready());
            assertTrue(
                    full.readiness().reason().contains("disk nearly full"),
                    full.readiness().reason());
            assertEquals("FOLLOWER", full.status().state(), "the full node still follows (not halted)");
            assertNull(c.value(FULL, "while-full199"), "the full node took no entry");

            Files.delete(ballast);
            Await.until(
                    Duration.ofSeconds(20),
                    "ready again once space is freed",
                    () -> full.readiness().ready());
            c.awaitIdentical();
            assertEquals("v-while-full199", c.value(FULL, "while-full199"));
            assertFalse(full.status().state().contains("ERROR"), full.status().state());
        } finally {
            run("umount", "-l", fullDir.toString());
        }
    }

    private static void fill(Path file, long bytes) throws IOException {
        byte[] block = new byte[1 << 20];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            for (long written = 0; written < bytes; written += block.length) {
                f.write(block, 0, (int) Math.min(block.length, bytes - written));
            }
        }
    }

    private static boolean isRoot() throws IOException, InterruptedException {
        Process id = new ProcessBuilder("id", "-u").start();
        return new String(id.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        .trim()
                        .equals("0")
                && id.waitFor() == 0;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
    }
}
