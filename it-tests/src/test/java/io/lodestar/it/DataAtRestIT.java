package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a node leaves on disk is its owner's alone: the data dir holds the token signing key, every
 * password hash and every config, so a local user who can read a file in it can forge an admin's
 * token. Real server processes, auth on, snapshots forced by a small {@code --snapshot-entries}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DataAtRestIT {
    private static final String DIRECTORY = "rwx------";
    private static final String FILE = "rw-------";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private ServerProcess authNode(String name) {
        return cluster.standalone(name, "--auth", "on", "--snapshot-entries", "20");
    }

    @Test
    void everyFileTheNodeWritesIsOwnerOnlyIncludingSnapshotsAndFilesCreatedAfterStart() throws Exception {
        ServerProcess p = authNode("owner-only").start();
        p.awaitReady();
        String token = login(p, adminPassword(p));
        long first = publishUntilSnapshot(p, token, "before-restart", 0);
        assertEquals(0, cluster.stop(p), p.logText()); // the tree holds still while it is walked
        assertOwnerOnly(p.dataDir);

        // a restart on the existing files, then new log segments, SST files and a newer snapshot
        cluster.start(p);
        p.awaitReady();
        publishUntilSnapshot(p, login(p, adminPassword(p)), "after-restart", first);
        assertEquals(0, cluster.stop(p), p.logText()); // flushes what the memtables held
        assertOwnerOnly(p.dataDir);
        assertFalse(p.logText().contains("tightened"), "nothing it wrote needed tightening:\n" + p.logText());
    }

    @Test
    void aDataDirOthersCanReadIsTightenedAtStartAndEachPathIsNamedInTheLog() throws Exception {
        ServerProcess p = authNode("loosened").start();
        p.awaitReady();
        long first = publishUntilSnapshot(p, login(p, adminPassword(p)), "cfg", 0);
        assertEquals(0, cluster.stop(p), p.logText());

        // as an older build, a volume made under umask 022 or a cp -r would have left it; the paths
        // by file: a snapshot's SST files are hard links to the store's, so one chmod tightens both
        Map<Object, List<Path>> loosened = new HashMap<>();
        try (Stream<Path> all = Files.walk(p.dataDir)) {
            for (Path path : all.toList()) {
                Files.setPosixFilePermissions(
                        path, PosixFilePermissions.fromString(Files.isDirectory(path) ? "rwxr-xr-x" : "rw-r--r--"));
                Object file =
                        Files.readAttributes(path, BasicFileAttributes.class).fileKey();
                loosened.computeIfAbsent(file, f -> new ArrayList<>()).add(path);
            }
        }
        int before = p.logText().length();
        cluster.start(p);
        p.awaitReady();

        String log = p.logText().substring(before);
        for (List<Path> names : loosened.values()) {
            assertTrue(
                    names.stream().anyMatch(path -> log.contains("tightened " + path + " from")),
                    names + " is named in the log:\n" + log);
        }
        publishUntilSnapshot(p, login(p, adminPassword(p)), "after-tightening", first);
        assertEquals(0, cluster.stop(p), p.logText());
        assertOwnerOnly(p.dataDir);
    }

    @Test
    void aPathThatCannotBeTightenedStopsTheStartWithExitOneNamingIt() throws Exception {
        ServerProcess p = authNode("unfixable");
        Files.createDirectories(p.dataDir);
        // a file whose mode not even root may change; the walk follows links, as it follows an
        // operator's link that puts part of the data dir on another disk
        Path link = Files.createSymbolicLink(p.dataDir.resolve("elsewhere"), Path.of("/proc/self/status"));
        p.start();

        assertEquals(1, p.waitExit(Duration.ofSeconds(60)), p.logText());
        String log = p.logText();
        assertTrue(log.contains("failed to start"), log);
        assertTrue(log.contains(link.toString()), "names the path:\n" + log);
    }

    @Test
    void theInitialAdminPasswordIsOnlyInItsOwnerOnlyFileAndTheLogSaysWhere() throws Exception {
        ServerProcess p = authNode("password").start();
        p.awaitReady();
        String password = adminPassword(p);
        Path file = p.dataDir.resolve("initial-admin-password");
        assertEquals(FILE, mode(file));
        assertTrue(p.logText().contains("its password is in " + file), p.logText());

        // logins (a right and a wrong one) and writes: what the log and the audit log record
        String token = login(p, password);
        Http.Response wrong = Http.postForm(
                p.httpAddress(), "/nacos/v1/auth/users/login", params("username", "nacos", "password", password + "x"));
        assertEquals(403, wrong.status(), wrong.body());
        publishUntilSnapshot(p, token, "cfg", 0);
        assertEquals(0, cluster.stop(p), p.logText());

        assertFalse(p.logText().contains(password), "the password is not in stdout or stderr:\n" + p.logText());
        byte[] secret = password.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> all = Files.walk(p.dataDir)) {
            for (Path path : all.filter(Files::isRegularFile).toList()) {
                if (!path.equals(file)) {
                    assertFalse(contains(Files.readAllBytes(path), secret), "the password is in " + path);
                }
            }
        }
        assertEquals(password, Files.readString(file).trim(), "the file still holds it");
    }

    /**
     * Publishes configs until a snapshot newer than index {@code after} is on disk; returns its
     * index. The node snapshots every 20 entries.
     */
    private static long publishUntilSnapshot(ServerProcess p, String token, String prefix, long after) {
        int[] n = {0};
        return Await.result(Duration.ofSeconds(90), "a snapshot after index " + after + " on " + p, () -> {
            for (int i = 0; i < 10; i++) {
                Http.Response r = Http.postForm(
                        p.httpAddress(),
                        "/nacos/v1/cs/configs?accessToken=" + token,
                        params("dataId", prefix + "-" + n[0]++, "group", "DEFAULT_GROUP", "content", "k: v"));
                assertEquals(200, r.status(), r.body());
            }
            long newest = newestSnapshot(p.dataDir);
            return newest > after ? newest : null;
        });
    }

    private static long newestSnapshot(Path dataDir) throws IOException {
        Path dir = dataDir.resolve("raft").resolve("snapshot");
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> children = Files.list(dir)) {
            return children.map(c -> c.getFileName().toString())
                    .filter(name -> name.matches("snapshot_\\d+"))
                    .mapToLong(name -> Long.parseLong(name.substring("snapshot_".length())))
                    .max()
                    .orElse(0);
        }
    }

    /** The data dir 0700, and every directory under it 0700 and every file 0600. */
    private static void assertOwnerOnly(Path dataDir) throws IOException {
        assertEquals(DIRECTORY, mode(dataDir), dataDir.toString());
        int files = 0;
        boolean sst = false;
        try (Stream<Path> all = Files.walk(dataDir)) {
            for (Path path : all.toList()) {
                if (Files.isDirectory(path)) {
                    assertEquals(DIRECTORY, mode(path), path.toString());
                } else {
                    assertEquals(FILE, mode(path), path.toString());
                    files++;
                    sst |= path.getFileName().toString().endsWith(".sst");
                }
            }
        }
        assertTrue(sst, "RocksDB wrote SST files under " + dataDir);
        assertTrue(files > 20, files + " files under " + dataDir);
    }

    private static String adminPassword(ServerProcess p) {
        Path file = p.dataDir.resolve("initial-admin-password");
        return Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> Files.exists(file) ? Files.readString(file).trim() : null);
    }

    private static String login(ServerProcess p, String password) throws IOException {
        Http.Response r = Http.postForm(
                p.httpAddress(), "/nacos/v1/auth/users/login", params("username", "nacos", "password", password));
        assertEquals(200, r.status(), r.body());
        return Http.JSON.readTree(r.body()).get("accessToken").asText();
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
