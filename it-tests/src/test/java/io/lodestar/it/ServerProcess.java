package io.lodestar.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Lodestar server as a real OS process, started from the packaged jar, with its output in a
 * log file. Stop (SIGTERM), kill (SIGKILL) and restart on the same data dir.
 */
final class ServerProcess {
    static final Path JAR = Path.of(System.getProperty("lodestar.jar", "../console-api/target/lodestar.jar"));

    final String host = "127.0.0.1";
    final int httpPort;
    final int raftPort;
    final Path dataDir;
    final Path log;
    private final List<String> extraArgs;
    private List<String> jvmArgs = List.of();
    private Process process;
    private int starts;

    ServerProcess(Path workDir, String name, int httpPort, int raftPort, List<String> extraArgs) {
        this.httpPort = httpPort;
        this.raftPort = raftPort;
        this.dataDir = workDir.resolve(name + "-data");
        this.log = workDir.resolve(name + ".log");
        this.extraArgs = extraArgs;
    }

    String raftAddress() {
        return host + ":" + raftPort;
    }

    String httpAddress() {
        return host + ":" + httpPort;
    }

    /** JVM flags for the next start only (e.g. a crash point). */
    ServerProcess withJvmArgs(String... args) {
        this.jvmArgs = List.of(args);
        return this;
    }

    ServerProcess start() {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run 'mvn package' first");
        }
        // RocksDB unpacks its native library (15 MB) into java.io.tmpdir and a kill -9 leaves it
        // there: keep it in this test's directory, which is deleted afterwards.
        List<String> cmd = new ArrayList<>(List.of(javaBin(), "-Xmx256m", "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + dataDir.getParent()));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-jar", JAR.toString(), "server", "--host", host, "--port", String.valueOf(httpPort),
                "--raft-port", String.valueOf(raftPort), "--data-dir", dataDir.toString(), "--auth", "off"));
        if (!extraArgs.contains("--dns-port")) {
            cmd.addAll(List.of("--dns-port", "0")); // several nodes share this host: any free port
        }
        cmd.addAll(extraArgs);
        try {
            Files.writeString(log, "=== start " + (++starts) + ": " + String.join(" ", cmd) + "\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        jvmArgs = List.of();
        return this;
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: no shutdown hook, no flush. */
    void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitExit(Duration.ofSeconds(10));
        }
    }

    /** SIGTERM, then waits for the exit code. */
    int stop() {
        process.destroy();
        return waitExit(Duration.ofSeconds(30));
    }

    int waitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("server did not exit within " + timeout + "; see " + log);
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    String logText() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
