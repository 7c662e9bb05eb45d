package io.lodestar.kv.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.FileReader;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Ports come from below the kernel's ephemeral range, are bindable and are never handed out twice. */
class FreePortsTest {
    @Test
    void portsAreDistinctBindableAndBelowTheEphemeralRange() throws Exception {
        assumeTrue(
                Files.exists(Path.of(FreePorts.EPHEMERAL_RANGE)), "no " + FreePorts.EPHEMERAL_RANGE + " (not Linux)");
        int ephemeralLow;
        try (BufferedReader r = new BufferedReader(new FileReader(FreePorts.EPHEMERAL_RANGE))) {
            ephemeralLow = Integer.parseInt(r.readLine().trim().split("\\s+")[0]);
        }
        assumeTrue(ephemeralLow >= 12_000, "the ephemeral range starts at " + ephemeralLow + ": no room below it");
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = FreePorts.next();
            assertTrue(
                    port >= 10_000 && port < ephemeralLow, port + " is not below the ephemeral range " + ephemeralLow);
            assertTrue(seen.add(port), port + " handed out twice");
            try (ServerSocket s = new ServerSocket(port)) {
                assertEquals(port, s.getLocalPort());
            }
        }
    }
}
