package io.lodestar.kv.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for nodes and servers the tests of every module start on this host: free when picked, never
 * handed out twice in one JVM (a node's HTTP port once equalled another node's Raft port, and it
 * failed to bind), and outside the kernel's ephemeral port range. A port from {@code new
 * ServerSocket(0)} comes from that range, so between the pick and the node's bind an outgoing
 * connection (a node that started first, dialling peers not yet up) could take it as its source
 * port, and the bind failed with "Address already in use".
 */
public final class FreePorts {
    /** The start of Linux's default ephemeral range, used where /proc does not say. */
    private static final int DEFAULT_EPHEMERAL_LOW = 32768;

    static final String EPHEMERAL_RANGE = "/proc/sys/net/ipv4/ip_local_port_range";
    private static final int LOWEST = 10_000;
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
    /** Where the ephemeral range starts; ports are picked from [LOWEST, this) when there is room. */
    private static final int EPHEMERAL_LOW = ephemeralLow();

    private static final boolean ROOM_BELOW = EPHEMERAL_LOW - LOWEST >= 2000;

    private FreePorts() {}

    public static int next() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = ROOM_BELOW ? ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_LOW) : ephemeral();
            if (!GIVEN.contains(port) && bindable(port) && GIVEN.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port found in 1,000 attempts");
    }

    /**
     * A free port whose partner {@code offset} above it is free too, both marked as given: for a
     * server that derives a second port from its first (nacos-client 2.x/3.x finds a server's gRPC
     * port only so). Returns the lower port.
     */
    public static int nextPair(int offset) {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = next();
            int partner = port + offset;
            if (partner >= EPHEMERAL_LOW && EPHEMERAL_LOW - LOWEST >= 2000 + offset) {
                continue; // keep both below the ephemeral range
            }
            if (!GIVEN.contains(partner) && bindable(partner) && GIVEN.add(partner)) {
                return port;
            }
        }
        throw new IllegalStateException("no free pair of ports " + offset + " apart found in 1,000 attempts");
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int ephemeral() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int ephemeralLow() {
        try {
            // not Files.readString: /proc reports a size of 0, and the JDK then reads a single byte
            return Integer.parseInt(
                    Files.readAllLines(Path.of(EPHEMERAL_RANGE)).get(0).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW; // not Linux, or unreadable
        }
    }
}
