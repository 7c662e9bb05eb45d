package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server asked by BIND's {@code dig}, a resolver we did not write, when it is installed
 * (skipped otherwise; {@link DnsServerTest} covers the same ground with dnsjava's resolver).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DigTest {

    private static String dig() {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            File f = new File(dir, "dig");
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        return null;
    }

    @Test
    void digGetsTheSrvRecordsAndFallsBackToTcpForABigAnswer() throws Exception {
        String dig = dig();
        Assumptions.assumeTrue(dig != null, "dig is not installed (apt package bind9-dnsutils); skipping");
        InMemorySource source = new InMemorySource()
                .put("public", "DEFAULT_GROUP", "orders", List.of(DnsTarget.serving("127.0.0.1", 8080, 1)));
        List<DnsTarget> many = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(DnsTarget.serving("127.1.0." + i, 7000, 1));
        }
        source.put("public", "DEFAULT_GROUP", "big", many);
        try (DnsServer server =
                new DnsServer(DnsServerSettings.defaults().withAddress("127.0.0.1", 0), source).start()) {
            String srv = run(
                    dig,
                    "@127.0.0.1",
                    "-p",
                    String.valueOf(server.port()),
                    "+short",
                    "orders.DEFAULT_GROUP.public.lodestar.",
                    "SRV");
            assertEquals(
                    List.of("0 65535 8080 127-0-0-1-8080.orders.DEFAULT_GROUP.public.lodestar."),
                    srv.lines().filter(l -> !l.startsWith(";")).toList());
            // +ignore off (the default): dig retries a truncated UDP answer over TCP
            String big = run(
                    dig,
                    "@127.0.0.1",
                    "-p",
                    String.valueOf(server.port()),
                    "+short",
                    "+noedns",
                    "big.DEFAULT_GROUP.public.lodestar.",
                    "A");
            // (dig may also print a ";; Truncated, retrying in TCP mode." line: count addresses only)
            long addresses =
                    big.lines().filter(l -> l.matches("127\\.1\\.0\\.\\d+")).count();
            assertEquals(100, addresses, big);
            String refused = run(dig, "@127.0.0.1", "-p", String.valueOf(server.port()), "example.com.", "A");
            assertTrue(refused.contains("status: REFUSED"), refused);
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "dig finished");
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
