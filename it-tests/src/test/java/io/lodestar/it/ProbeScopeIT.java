package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server process probes only the addresses its {@code --probe-allow} admits: persistent
 * instances registered at a private address and at the cloud metadata address are never dialled
 * (every probe the server counts as started arrives at the one loopback listener), keep the health
 * they were registered with and say why they are not probed, while a loopback instance is probed
 * as before.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProbeScopeIT {
    private static final String SERVICE = "scoped";
    private static final Pattern COUNTER = Pattern.compile("(?m)^(lodestar_health_probes_\\w+?)_total\\s+(\\S+)$");

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void probesReachOnlyAllowedAddressesAndTheOthersSayWhy() throws Exception {
        ServerProcess p = cluster.startStandalone("scope");
        assertTrue(
                p.logText().contains("health probes to --probe-allow " + ServerProcess.PROBE_SCOPE),
                "the start-up log names the setting:\n" + p.logText());
        try (CountingListener listener = new CountingListener()) {
            ok(Http.postForm(p.httpAddress(), "/nacos/v1/ns/service", Http.params("serviceName", SERVICE)));
            ok(Http.send(
                    p.httpAddress(),
                    "PUT",
                    "/nacos/v1/ns/cluster",
                    Http.params(
                            "serviceName",
                            SERVICE,
                            "clusterName",
                            "web",
                            "healthChecker",
                            "{\"type\":\"HTTP\",\"path\":\"/latest/meta-data/\"}")));
            register(p, "DEFAULT", "10.0.0.1", 80, true);
            register(p, "web", "169.254.169.254", 80, true);
            register(p, "DEFAULT", "127.0.0.1", listener.port(), false);

            Await.until(
                    Duration.ofSeconds(30),
                    "the loopback instance probed healthy",
                    () -> instance(p, "DEFAULT", "127.0.0.1", listener.port())
                            .get("healthy")
                            .asBoolean());
            Await.until(
                    Duration.ofSeconds(30),
                    "two rounds of refusals for the two other instances",
                    () -> counters(p).getOrDefault("lodestar_health_probes_refused", 0L) >= 4);

            long started = counters(p).get("lodestar_health_probes_started");
            assertTrue(started >= 1, "probes started: " + started);
            // a probe started towards any other address would never arrive here
            Await.until(
                    Duration.ofSeconds(10),
                    "all " + started + " probes started to arrive at the loopback listener",
                    () -> listener.accepted() >= started);

            JsonNode privateOne = instance(p, "DEFAULT", "10.0.0.1", 80);
            assertTrue(privateOne.get("healthy").asBoolean(), "health as registered: " + privateOne);
            assertFalse(privateOne.get("probed").asBoolean(), privateOne.toString());
            assertEquals(
                    "10.0.0.1 is outside --probe-allow " + ServerProcess.PROBE_SCOPE,
                    privateOne.get("notProbedReason").asText());
            JsonNode metadata = instance(p, "web", "169.254.169.254", 80);
            assertFalse(metadata.get("probed").asBoolean(), metadata.toString());
            assertEquals(
                    "169.254.169.254 is never probed (in 169.254.0.0/16)",
                    metadata.get("notProbedReason").asText());
            JsonNode local = instance(p, "DEFAULT", "127.0.0.1", listener.port());
            assertTrue(local.get("probed").asBoolean(), local.toString());
            assertFalse(local.has("notProbedReason"), local.toString());

            JsonNode service = Http.json(p.httpAddress(), "/nacos/v1/ns/service?serviceName=" + SERVICE);
            Map<String, String> notProbed = new HashMap<>();
            for (JsonNode cluster : service.get("clusters")) {
                for (JsonNode n : cluster.get("notProbed")) {
                    notProbed.put(
                            cluster.get("name").asText() + "/" + n.get("ip").asText() + ":"
                                    + n.get("port").asInt(),
                            n.get("reason").asText());
                }
            }
            assertEquals(
                    Map.of(
                            "DEFAULT/10.0.0.1:80",
                            privateOne.get("notProbedReason").asText(),
                            "web/169.254.169.254:80",
                            metadata.get("notProbedReason").asText()),
                    notProbed,
                    service.toString());
        }
    }

    private static void register(ServerProcess p, String cluster, String ip, int port, boolean healthy)
            throws IOException {
        ok(Http.postForm(
                p.httpAddress(),
                "/nacos/v1/ns/instance",
                Http.params(
                        "serviceName",
                        SERVICE,
                        "clusterName",
                        cluster,
                        "ip",
                        ip,
                        "port",
                        String.valueOf(port),
                        "ephemeral",
                        "false",
                        "healthy",
                        String.valueOf(healthy))));
    }

    private static JsonNode instance(ServerProcess p, String cluster, String ip, int port) throws IOException {
        return Http.json(
                p.httpAddress(),
                "/nacos/v1/ns/instance?serviceName=" + SERVICE + "&clusterName=" + cluster + "&ip=" + ip + "&port="
                        + port);
    }

    private static Map<String, Long> counters(ServerProcess p) throws IOException {
        Http.Response r = Http.get(p.httpAddress(), "/metrics");
        ok(r);
        Map<String, Long> out = new HashMap<>();
        Matcher m = COUNTER.matcher(r.body());
        while (m.find()) {
            out.put(m.group(1), (long) Double.parseDouble(m.group(2)));
        }
        return out;
    }

    private static void ok(Http.Response r) {
        assertEquals(200, r.status(), r.body());
    }

    /** A TCP listener on 127.0.0.1 that accepts, counts and closes every connection. */
    private static final class CountingListener implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final AtomicLong accepted = new AtomicLong();
        private final Thread thread = new Thread(this::run, "counting-listener");

        CountingListener() throws IOException {
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (!socket.isClosed()) {
                try (Socket s = socket.accept()) {
                    accepted.incrementAndGet();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        int port() {
            return ((InetSocketAddress) socket.getLocalSocketAddress()).getPort();
        }

        long accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
