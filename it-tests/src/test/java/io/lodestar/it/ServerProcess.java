package io.lodestar.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Lodestar server as a real OS process, started from the packaged jar, with its output in a
 * log file: start, stop (SIGTERM), kill (SIGKILL), wipe its data dir, and what it says of itself
 * (ready, its view of the group). A process may be launched through a prefix command, e.g.
 * {@code ip netns exec NS}, so that it runs in a network namespace. Tests get their servers from
 * {@link LodestarCluster}, which also applies the faults.
 */
final class ServerProcess {
    /** The gRPC port's distance from the HTTP port, as nacos-client 2.x/3.x assumes it. */
    static final int GRPC_OFFSET = 1000;

    /**
     * Where a test server's health checks may connect: this machine and the network namespaces
     * of {@link NetworkLab}, nothing else, even for an instance a test registers elsewhere.
     */
    static final String PROBE_SCOPE = "127.0.0.0/8," + NetworkLab.NETWORK;

    static final Path JAR = Path.of(System.getProperty("lodestar.jar", "../console-api/target/lodestar.jar"));

    final String name;
    final String host;
    final int httpPort;
    final int raftPort;
    final Path dataDir;
    final Path log;
    private final List<String> extraArgs;
    private final List<String> launcher;
    private List<String> jvmArgs = List.of();
    private List<String> argsOnce = List.of();
    private final Map<String, String> env = new LinkedHashMap<>();
    private Process process;
    private int starts;

    ServerProcess(Path workDir, String name, int httpPort, int raftPort, List<String> extraArgs) {
        this(workDir, name, "127.0.0.1", httpPort, raftPort, List.of(), extraArgs);
    }

    /**
     * @param host     the node's {@code --host}: where it binds and its identity in the group
     * @param launcher a command the java command line is appended to (empty: run java directly); it
     *                 must exec java in place, so that the process killed is the server itself
     */
    ServerProcess(
            Path workDir,
            String name,
            String host,
            int httpPort,
            int raftPort,
            List<String> launcher,
            List<String> extraArgs) {
        this.name = name;
        this.host = host;
        this.launcher = List.copyOf(launcher);
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

    /** Server flags for the next start only (e.g. a recovery flag). */
    ServerProcess withArgsOnce(String... args) {
        this.argsOnce = List.of(args);
        return this;
    }

    /** An environment variable for the process at every start (e.g. a LODESTAR_* setting). */
    ServerProcess withEnv(String name, String value) {
        env.put(name, value);
        return this;
    }

    ServerProcess start() {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run 'mvn package' first");
        }
        // RocksDB unpacks its native library (15 MB) into java.io.tmpdir and a kill -9 leaves it
        // there: keep it in this test's directory, which is deleted afterwards.
        if (alive()) {
            throw new IllegalStateException(name + " is already running");
        }
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(List.of(javaBin(), "-Xmx256m", "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + dataDir.getParent()));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of(
                "-jar",
                JAR.toString(),
                "server",
                "--host",
                host,
                "--port",
                String.valueOf(httpPort),
                "--raft-port",
                String.valueOf(raftPort),
                "--data-dir",
                dataDir.toString()));
        if (!extraArgs.contains("--auth")) {
            cmd.addAll(List.of("--auth", "off"));
        }
        if (!extraArgs.contains("--dns-port")) {
            cmd.addAll(List.of("--dns-port", "0")); // several nodes share this host: any free port
        }
        if (!extraArgs.contains("--probe-allow")) {
            cmd.addAll(List.of("--probe-allow", PROBE_SCOPE));
        }
        cmd.addAll(extraArgs);
        cmd.addAll(argsOnce);
        argsOnce = List.of();
        try {
            Files.writeString(
                    log,
                    "=== start " + (++starts) + ": " + String.join(" ", cmd) + "\n",
                    java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            ProcessBuilder builder = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().put("LODESTAR_CLUSTER_SECRET", LodestarCluster.SECRET); // as operators give it
            builder.environment().putAll(env);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        jvmArgs = List.of();
        return this;
    }

    /** Deletes the data dir: the node forgets everything, including its Raft term and vote. */
    void wipeData() {
        if (alive()) {
            throw new IllegalStateException("stop " + name + " before wiping its data");
        }
        LodestarCluster.deleteTree(dataDir);
        if (Files.exists(dataDir)) {
            throw new IllegalStateException("could not delete " + dataDir);
        }
    }

    long pid() {
        return process == null ? -1 : process.pid();
    }

    @Override
    public String toString() {
        return name + "@" + host;
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

    /** Waits until the node answers ready (knows a leader, caught up); fails at once if it exited. */
    void awaitReady() {
        awaitReady(() ->
                Http.get(httpAddress(), "/nacos/v1/console/health/readiness").status() == 200);
    }

    /** As {@link #awaitReady()}, asking the node with {@code ready} (e.g. over HTTPS). */
    void awaitReady(Await.Check ready) {
        Await.until(Duration.ofSeconds(60), httpAddress() + " ready", () -> {
            if (!alive()) {
                throw new AssertionError("server exited with " + waitExit(Duration.ofSeconds(1)) + ":\n" + logText());
            }
            return ready.ok();
        });
    }

    /** Ready, and every member's HTTP address is in the store: no background write is pending. */
    void awaitSettled() {
        awaitReady();
        Await.until(Duration.ofSeconds(30), httpAddress() + " settled", () -> {
            for (JsonNode m : view().get("members")) {
                if (m.get("httpAddress").isNull()) {
                    return false;
                }
            }
            return true;
        });
    }

    /** This node's {@code GET /lodestar/v1/cluster}: leader, term, indexes, revision, members. */
    JsonNode view() throws IOException {
        return Http.json(httpAddress(), "/lodestar/v1/cluster");
    }

    /** The node's store revision (an AssertionError if it does not answer, so it can be used in streams). */
    long revision() {
        try {
            return view().get("revision").asLong();
        } catch (Exception e) {
            throw new AssertionError(this + " did not tell its revision", e);
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
