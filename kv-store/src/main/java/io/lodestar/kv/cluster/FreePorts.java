package io.lodestar.kv.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for nodes started on this host by the CLI's self-test and by the tests: free when picked,
 * never handed out twice in one JVM, and outside the kernel's ephemeral port range. A port from
 * {@code new ServerSocket(0)} comes from that range, so between the pick and the node's bind an
 * outgoing connection (a node that started first, dialling peers not yet up) could take it as its
 * source port, and the bind failed with "Address already in use".
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
