package io.lodestar.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers on loopback. Each is free when handed out, never handed out before in this
 * test JVM (a node's HTTP port once equalled another node's Raft port, and it failed to bind), and
 * below the kernel's ephemeral range: a port from {@code new ServerSocket(0)} comes from that
 * range, so an outgoing connection made before the server binds (a node dialling peers not yet up)
 * could take it as its source port. The same rule as kv-store's {@code FreePorts}, which these
 * black-box tests do not link.
 */
final class FreePorts {
    /** The kernel may offer a port again once its probe socket closed: remember what was given. */
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private static final int LOWEST_PORT = 10_000;
    /** The gRPC port's distance from the HTTP port, as the clients assume it. */
    static final int GRPC_OFFSET = 1000;

    private static final int EPHEMERAL_LOW = ephemeralLow();

    private FreePorts() {}

    static int take() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = EPHEMERAL_LOW - LOWEST_PORT >= 2000
                    ? ThreadLocalRandom.current().nextInt(LOWEST_PORT, EPHEMERAL_LOW)
                    : 0;
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

    /**
     * A port for a server's HTTP API whose gRPC port, {@value #GRPC_OFFSET} above it, is free too:
     * nacos-client 2.x/3.x finds a server's gRPC port only so. Both are marked as given.
     */
    static int takeHttp() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int http = take();
            int grpc = http + GRPC_OFFSET;
            if (grpc >= EPHEMERAL_LOW && EPHEMERAL_LOW - LOWEST_PORT >= 2000 + GRPC_OFFSET) {
                continue; // keep both below the ephemeral range
            }
            try (ServerSocket s = new ServerSocket(grpc)) {
                if (GIVEN.add(grpc)) {
                    return http;
                }
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IllegalStateException("no free pair of HTTP and gRPC ports found in 1,000 attempts");
    }

    private static int ephemeralLow() {
        try {
            // not Files.readString: /proc reports a size of 0, and the JDK then reads a single byte
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .get(0)
                    .trim()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32768; // Linux's default
        }
    }
}
