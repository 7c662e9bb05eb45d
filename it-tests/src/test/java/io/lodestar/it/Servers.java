package io.lodestar.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit extension owning the server processes of one test: creates standalone nodes or
 * clusters on free loopback ports in a fresh temporary directory, kills whatever is left after the
 * test, and prints every node's log when the test failed (so it lands in the test report).
 */
final class Servers implements AfterEachCallback {
    static final String SECRET = "it-tests-cluster-secret-0123456789";
    private final List<ServerProcess> all = new ArrayList<>();
    private Path workDir;

    private Path workDir() {
        if (workDir == null) {
            try {
                workDir = Files.createTempDirectory("lodestar-it-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return workDir;
    }

    ServerProcess standalone(String name, String... extraArgs) {
        ServerProcess p = new ServerProcess(workDir(), name, freePort(), freePort(), List.of(extraArgs));
        all.add(p);
        return p;
    }

    /** A group of {@code size} nodes on loopback (not started), each given {@code extraArgs} too. */
    List<ServerProcess> cluster(int size, String... extraArgs) {
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(new int[] {freePort(), freePort()});
        }
        String peers = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p[1]).toList());
        List<ServerProcess> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            List<String> args = new ArrayList<>(List.of("--peers", peers, "--cluster-secret", SECRET));
            args.addAll(List.of(extraArgs));
            ServerProcess p = new ServerProcess(workDir(), "node" + i, ports.get(i)[0], ports.get(i)[1], args);
            nodes.add(p);
            all.add(p);
        }
        return nodes;
    }

    /** A node at a given address, started through {@code launcher} (see {@link ServerProcess}); not started. */
    ServerProcess node(String name, String host, int httpPort, int raftPort, List<String> launcher, List<String> args) {
        ServerProcess p = new ServerProcess(workDir(), name, host, httpPort, raftPort, launcher, args);
        all.add(p);
        return p;
    }

    /** Starts every node, then waits until each is ready. */
    static List<ServerProcess> startAll(List<ServerProcess> nodes) {
        nodes.forEach(ServerProcess::start);
        nodes.forEach(Servers::awaitReady);
        return nodes;
    }

    static void awaitReady(ServerProcess p) {
        Await.until(Duration.ofSeconds(60), p.httpAddress() + " ready", () -> {
            if (!p.alive()) {
                throw new AssertionError("server exited with " + p.waitExit(Duration.ofSeconds(1)) + ":\n" + p.logText());
            }
            return Http.get(p.httpAddress(), "/nacos/v1/console/health/readiness").status() == 200;
        });
    }

    /** Ready, and every member's HTTP address is in the store: no background write is pending. */
    static void awaitSettled(ServerProcess p) {
        awaitReady(p);
        Await.until(Duration.ofSeconds(30), p.httpAddress() + " settled", () -> {
            for (var m : Http.json(p.httpAddress(), "/lodestar/v1/cluster").get("members")) {
                if (m.get("httpAddress").isNull()) {
                    return false;
                }
            }
            return true;
        });
    }

    @Override
    public void afterEach(ExtensionContext context) {
        boolean failed = context.getExecutionException().isPresent();
        for (ServerProcess p : all) {
            if (p.alive()) {
                p.kill();
            }
            if (failed) {
                System.out.println("===== log of " + p.log.getFileName() + " =====\n" + p.logText());
            }
        }
        all.clear();
        if (!failed && workDir != null) {
            deleteTree(workDir);
        }
        workDir = null;
    }

    /** Ports handed out in this JVM: the kernel may offer a port again once its probe socket closed. */
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
    private static final int LOWEST_PORT = 10_000;
    private static final int EPHEMERAL_LOW = ephemeralLow();

    /**
     * A port free now, never handed out before in this test JVM (a node's HTTP port once equalled
     * another node's Raft port, and it failed to bind), and below the kernel's ephemeral range: a
     * port from {@code new ServerSocket(0)} comes from that range, so an outgoing connection made
     * before the server binds (a node dialling peers not yet up) could take it as its source port.
     * The same rule as kv-store's {@code FreePorts}, which these black-box tests do not link.
     */
    static int freePort() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = EPHEMERAL_LOW - LOWEST_PORT >= 2000
                    ? java.util.concurrent.ThreadLocalRandom.current().nextInt(LOWEST_PORT, EPHEMERAL_LOW) : 0;
            try (ServerSocket s = new ServerSocket(port)) {
                if (GIVEN.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no free port found in 1,000 attempts");
    }

    private static int ephemeralLow() {
        try {
            // not Files.readString: /proc reports a size of 0, and the JDK then reads a single byte
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32768; // Linux's default
        }
    }

    static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp dir left behind is harmless
        }
    }
}
