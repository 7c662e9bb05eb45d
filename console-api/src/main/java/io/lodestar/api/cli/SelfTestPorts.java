package io.lodestar.api.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The self-test node's ports: free when picked, distinct, and below the kernel's ephemeral port
 * range where there is room. A port from {@code new ServerSocket(0)} comes from that range, so
 * between the pick and the node's bind an outgoing connection could take it as its source port,
 * and the bind would fail with "Address already in use".
 */
final class SelfTestPorts {
    private static final int LOWEST = 10_000;
    /** Linux's default start of the ephemeral range, used where /proc does not say. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32768;

    private final Set<Integer> given = new HashSet<>();
    private final int ephemeralLow = ephemeralLow();

    int next() {
        boolean roomBelow = ephemeralLow - LOWEST >= 2000;
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = roomBelow ? ThreadLocalRandom.current().nextInt(LOWEST, ephemeralLow) : 0;
            try (ServerSocket s = new ServerSocket(port)) {
                if (given.add(s.getLocalPort())) {
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
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                    .get(0)
                    .trim()
                    .split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW; // not Linux, or unreadable
        }
    }
}
