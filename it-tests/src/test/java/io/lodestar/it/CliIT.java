package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The jar's command line: help, exit codes, and refusals that must name their reason. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CliIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path dir;

    record Run(int exit, String output) {}

    static Run run(String... args) throws Exception {
        List<String> cmd =
                new ArrayList<>(List.of(ServerProcess.javaBin(), "-Xmx128m", "-jar", ServerProcess.JAR.toString()));
        cmd.addAll(List.of(args));
        return run(new ProcessBuilder(cmd));
    }

    static Run run(ProcessBuilder builder) throws Exception {
        List<String> cmd = builder.command();
        Process p = builder.redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("did not exit: " + cmd);
        }
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void helpOnTheJarAndOnServerExitsZero() throws Exception {
        Run top = run("--help");
        assertEquals(0, top.exit, top.output);
        assertTrue(top.output.contains("server"), top.output);
        Run server = run("server", "--help");
        assertEquals(0, server.exit, server.output);
        for (String option : List.of(
                "--host",
                "--port",
                "--raft-port",
                "--data-dir",
                "--peers",
                "--cluster-secret-file",
                "--auth",
                "--tls-cert-file",
                "--tls-key-file")) {
            assertTrue(server.output.contains(option), option + " in\n" + server.output);
        }
    }

    @Test
    void badUsageExitsTwoWithAReason() throws Exception {
        String data = dir.resolve("d").toString();
        Path shortSecret = Files.writeString(dir.resolve("short.secret"), "short");
        Files.setPosixFilePermissions(shortSecret, PosixFilePermissions.fromString("rw-------"));
        Path openSecret = Files.writeString(dir.resolve("open.secret"), LodestarCluster.SECRET);
        Files.setPosixFilePermissions(openSecret, PosixFilePermissions.fromString("rw-r--r--"));
        Path emptyToken = Files.writeString(dir.resolve("empty.token"), " \n");
        Files.setPosixFilePermissions(emptyToken, PosixFilePermissions.fromString("rw-------"));
        record Case(String why, List<String> args, String mentions) {}
        List<Case> cases = List.of(
                new Case("no command", List.of(), "missing command"),
                new Case("unknown option", List.of("server", "--bogus"), "--bogus"),
                new Case("non-numeric port", List.of("server", "--port", "http"), "--port"),
                new Case("port out of range", List.of("server", "--port", "70000", "--data-dir", data), "--port"),
                new Case("auth neither on nor off", List.of("server", "--auth", "maybe"), "--auth"),
                new Case(
                        "peers without secret",
                        List.of("server", "--peers", "127.0.0.1:7848,127.0.0.1:7849", "--data-dir", data),
                        "cluster secret"),
                new Case(
                        "peers without self",
                        List.of(
                                "server",
                                "--raft-port",
                                "7000",
                                "--peers",
                                "127.0.0.1:7848,127.0.0.1:7849",
                                "--data-dir",
                                data),
                        "include this node"),
                new Case(
                        "malformed peer",
                        List.of("server", "--peers", "localhost", "--data-dir", data),
                        "host:raftPort"),
                new Case(
                        "a secret on the command line, which ps shows",
                        List.of("server", "--cluster-secret", LodestarCluster.SECRET, "--data-dir", data),
                        "LODESTAR_CLUSTER_SECRET"),
                new Case(
                        "short secret",
                        List.of("server", "--cluster-secret-file", shortSecret.toString(), "--data-dir", data),
                        "16 characters"),
                new Case(
                        "a secret file others may read",
                        List.of("server", "--cluster-secret-file", openSecret.toString(), "--data-dir", data),
                        "chmod 600"),
                new Case(
                        "a metrics token file others may read",
                        List.of("server", "--metrics-token-file", openSecret.toString(), "--data-dir", data),
                        "chmod 600"),
                new Case(
                        "an empty metrics token file",
                        List.of("server", "--metrics-token-file", emptyToken.toString(), "--data-dir", data),
                        "is empty"),
                new Case(
                        "probe network with host bits",
                        List.of("server", "--probe-allow", "10.0.0.1/8", "--data-dir", data),
                        "--probe-allow"),
                new Case(
                        "probe network that is a name",
                        List.of("server", "--probe-allow", "example.com", "--data-dir", data),
                        "--probe-allow"),
                new Case(
                        "zero snapshot entries",
                        List.of("server", "--snapshot-entries", "0", "--data-dir", data),
                        "--snapshot-entries"),
                new Case(
                        "snapshot size without a number",
                        List.of("server", "--snapshot-bytes", "MiB", "--data-dir", data),
                        "--snapshot-bytes"),
                new Case(
                        "disk reserve in an unknown unit",
                        List.of("server", "--disk-reserve", "5TB", "--data-dir", data),
                        "--disk-reserve"));
        for (Case c : cases) {
            Run r = run(c.args.toArray(String[]::new));
            assertEquals(2, r.exit, c.why + ":\n" + r.output);
            assertTrue(r.output.contains(c.mentions), c.why + " should mention '" + c.mentions + "':\n" + r.output);
        }
        assertTrue(!Files.exists(dir.resolve("d").resolve("raft")), "bad usage must not create a store");
    }

    @Test
    void corruptedStoreRefusesToStartNamingTheFile() throws Exception {
        ServerProcess p = cluster.startStandalone("victim");
        assertEquals(200, StandaloneServerIT.publish(p, "a", "b").status());
        assertEquals(0, cluster.stop(p));
        Path manifest;
        try (Stream<Path> files = Files.walk(p.dataDir.resolve("kv"))) {
            manifest = files.filter(f -> f.getFileName().toString().startsWith("MANIFEST-"))
                    .findFirst()
                    .orElseThrow();
        }
        Files.write(manifest, "garbage, not a manifest".getBytes(StandardCharsets.UTF_8));

        p.start();
        int exit = p.waitExit(Duration.ofSeconds(60));
        assertEquals(1, exit, p.logText());
        String log = p.logText();
        assertTrue(log.contains("failed to start"), log);
        assertTrue(log.contains(manifest.getParent().toString()), "names the store directory:\n" + log);
    }

    @Test
    void clusterCommandsLogInWithAPasswordFromAFileOrTheEnvironment() throws Exception {
        ServerProcess server = cluster.standalone("cli-auth", "--auth", "on").start();
        server.awaitReady();
        Path password = server.dataDir.resolve("initial-admin-password");
        Await.until(Duration.ofSeconds(30), "the admin's password file", () -> Files.exists(password));
        String address = "127.0.0.1:" + server.httpPort;

        Run anonymous = run("cluster", "status", "--server", address);
        assertEquals(4, anonymous.exit, "refused by auth: " + anonymous.output);
        assertTrue(anonymous.output.contains("no access token"), anonymous.output);

        Run fromFile = run("cluster", "status", "--server", address, "--password-file", password.toString());
        assertEquals(0, fromFile.exit, fromFile.output);
        assertTrue(fromFile.output.contains("LEADER"), fromFile.output);

        ProcessBuilder fromEnv = new ProcessBuilder(
                ServerProcess.javaBin(),
                "-Xmx128m",
                "-jar",
                ServerProcess.JAR.toString(),
                "cluster",
                "status",
                "--server",
                address);
        fromEnv.environment()
                .put("LODESTAR_PASSWORD", Files.readString(password).trim());
        Run env = run(fromEnv);
        assertEquals(0, env.exit, env.output);

        fromEnv.environment().put("LODESTAR_PASSWORD", "not-the-password");
        Run wrong = run(fromEnv);
        assertEquals(4, wrong.exit, "refused by auth: " + wrong.output);
        assertTrue(wrong.output.contains("cannot log in as nacos"), wrong.output);
    }

    @Test
    void portInUseFailsWithExitOneAndSaysWhich() throws Exception {
        ServerProcess first = cluster.startStandalone("first");
        // no DNS port of its own (-1): the default one may be taken too, and only the HTTP port is under test
        Run r = run(
                "server",
                "--auth",
                "off",
                "--port",
                String.valueOf(first.httpPort),
                "--raft-port",
                String.valueOf(FreePorts.next()),
                "--dns-port",
                "-1",
                "--grpc-port",
                "-1",
                "--data-dir",
                dir.resolve("second").toString());
        assertEquals(1, r.exit, r.output);
        assertTrue(r.output.contains(String.valueOf(first.httpPort)), r.output);
    }

    @Test
    void grpcPortInUseFailsWithExitOneAndSaysWhich() throws Exception {
        ServerProcess first = cluster.startStandalone("first");
        int grpcPort = first.httpPort + ServerProcess.GRPC_OFFSET;
        Run r = run(
                "server",
                "--auth",
                "off",
                "--port",
                String.valueOf(FreePorts.next()),
                "--grpc-port",
                String.valueOf(grpcPort),
                "--raft-port",
                String.valueOf(FreePorts.next()),
                "--dns-port",
                "-1",
                "--data-dir",
                dir.resolve("second").toString());
        assertEquals(1, r.exit, r.output);
        assertTrue(r.output.contains("gRPC") && r.output.contains(String.valueOf(grpcPort)), r.output);
    }

    @Test
    void selfTestRunsAThrowawayNodeThroughTheCommonRequestsAndLeavesNothingBehind() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Run r = run(new ProcessBuilder(
                ServerProcess.javaBin(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + tmp,
                "-jar",
                ServerProcess.JAR.toString(),
                "self-test"));
        assertEquals(0, r.exit, r.output);
        for (String check : List.of(
                "node ready",
                "publish a config: ok",
                "read it back: ok",
                "register an instance: ok",
                "beat it: ok",
                "list it: ok",
                "delete the config: ok",
                "self-test passed")) {
            assertTrue(r.output.contains(check), check + " in\n" + r.output);
        }
        try (Stream<Path> left = Files.list(tmp)) {
            List<Path> dirs = left.filter(f -> f.getFileName().toString().startsWith("lodestar-self-test"))
                    .toList();
            assertTrue(dirs.isEmpty(), "the throwaway node's data dir is deleted: " + dirs);
        }
    }

    /**
     * bin/lodestar records the classes a server loads into an archive next to the jar once per
     * build (from a self-test run), and later starts load them from it.
     */
    @Test
    void theLauncherRecordsAClassArchiveOnceAndLaterStartsLoadFromIt() throws Exception {
        Path launcher = Path.of("../bin/lodestar").toAbsolutePath().normalize();
        Path archive = ServerProcess.JAR.toAbsolutePath().normalize().resolveSibling("lodestar.jsa");
        Files.deleteIfExists(archive);

        ProcessBuilder first = new ProcessBuilder(launcher.toString(), "--version");
        first.environment().put("LODESTAR_JAVA_OPTS", "-Xmx128m");
        Run recorded = run(first);
        assertEquals(0, recorded.exit, recorded.output);
        assertTrue(recorded.output.contains("recording the classes"), recorded.output);
        assertTrue(Files.isRegularFile(archive), "no " + archive + " after:\n" + recorded.output);

        Path loaded = dir.resolve("classes.txt");
        ProcessBuilder second = new ProcessBuilder(launcher.toString(), "--version");
        second.environment().put("LODESTAR_JAVA_OPTS", "-Xmx128m -Xlog:class+load=info:file=" + loaded);
        Run started = run(second);
        assertEquals(0, started.exit, started.output);
        assertTrue(!started.output.contains("recording the classes"), "recorded again:\n" + started.output);
        String classes = Files.readString(loaded);
        assertTrue(
                classes.contains("io.lodestar.api.Main source: shared objects file (top)"),
                "Main not loaded from the archive:\n"
                        + classes.lines()
                                .filter(l -> l.contains("io.lodestar"))
                                .limit(5)
                                .toList());
    }

    static String read(Path file) throws IOException {
        return Files.readString(file);
    }
}
