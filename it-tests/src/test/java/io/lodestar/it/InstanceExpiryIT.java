package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A dead ephemeral instance is reported as Nacos reports it, on time and on every node: unhealthy
 * from the first check (every 5 s) after 15 s without a beat, gone from the first check after 30
 * s, for a service of one instance, for one of two (the other still beating) and for ten dying at
 * once; registered over raw HTTP and by the official nacos-client 1.4.7, listed by both.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class InstanceExpiryIT {
    private static final long UNHEALTHY_MS = 15_000;
    private static final long GONE_MS = 30_000;
    private static final long CHECK_MS = 5_000;
    /** Our polling period plus scheduling slack on a loaded 2-core machine; plus a Distro sync on a cluster. */
    private static final long SLACK_MS = 2_500;

    private static final long POLL_MS = 500;

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void aStandaloneServerReportsDeadInstancesUnhealthyThenGoneOnTime() throws Exception {
        ServerProcess p = cluster.startStandalone("expiry");
        List<Watched> watched = new ArrayList<>();
        watched.add(registerRaw(p, "solo", "127.0.0.9", 9999));
        Watched survivor = registerRaw(p, "pair", "127.0.1.1", 8080);
        watched.add(registerRaw(p, "pair", "127.0.1.2", 8080));
        for (int i = 1; i <= 10; i++) {
            watched.add(registerRaw(p, "ten", "127.0.2." + i, 8080));
        }
        NamingService client = client(p);
        long clientSent = System.nanoTime();
        client.registerInstance("client-solo", "127.0.3.1", 8080);
        // the client beats every 5 s; shutDown stops the beats without deregistering, as a crash would
        long clientStopped = System.nanoTime();
        client.shutDown();
        Watched viaClient = new Watched(
                "client-solo",
                "127.0.3.1",
                8080,
                Math.max(clientSent, clientStopped - TimeUnit.SECONDS.toNanos(5)),
                System.nanoTime());
        watched.add(viaClient);

        NamingService reader = client(p);
        try {
            watch(List.of(p), watched, () -> {
                beat(p, survivor);
                assertTrue(rawHealthy(p, survivor), "the instance still beating stays healthy");
                // the official client parses the answers: it sees the same truth
                List<Instance> seen = reader.getAllInstances("client-solo", false);
                Map<String, Boolean> health = new LinkedHashMap<>();
                seen.forEach(i -> health.put(i.getIp(), i.isHealthy()));
                viaClient.observe("client", health.isEmpty() ? null : health.get("127.0.3.1"));
            });
        } finally {
            reader.shutDown();
        }
    }

    @Test
    void everyNodeOfAClusterReportsTheSameDeadlines() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        List<Watched> watched = new ArrayList<>();
        for (int n = 0; n < nodes.size(); n++) {
            watched.add(registerRaw(nodes.get(n), "solo-via-" + n, "127.0.4." + (n + 1), 8080));
        }
        for (int i = 1; i <= 10; i++) {
            watched.add(registerRaw(nodes.get(i % 3), "ten", "127.0.5." + i, 8080));
        }
        watch(nodes, watched, () -> {});
    }

    /** Polls every node for every watched instance until all are gone everywhere, then checks each deadline. */
    private static void watch(List<ServerProcess> nodes, List<Watched> watched, ThrowingRunnable eachRound)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GONE_MS + CHECK_MS + SLACK_MS + 5_000);
        while (watched.stream().anyMatch(w -> !w.goneEverywhere(nodes.size())) && System.nanoTime() < deadline) {
            for (ServerProcess node : nodes) {
                Map<String, Map<String, Boolean>> byService = new LinkedHashMap<>();
                for (Watched w : watched) {
                    Map<String, Boolean> hosts = byService.computeIfAbsent(w.service, s -> listRaw(node, s));
                    w.observe(node.name, hosts.get(w.ip + ":" + w.port));
                }
            }
            eachRound.run();
            Thread.sleep(POLL_MS);
        }
        for (Watched w : watched) {
            w.check();
        }
        for (Watched w : watched) {
            assertEquals(
                    w.observers().size(),
                    nodes.size() + (w.service.equals("client-solo") ? 1 : 0),
                    w + " watched on every node: " + w.observers());
        }
    }

    private static Watched registerRaw(ServerProcess p, String service, String ip, int port) throws IOException {
        long sent = System.nanoTime();
        Http.Response r = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/ns/instance",
                Http.params("serviceName", service, "ip", ip, "port", String.valueOf(port), "ephemeral", "true"));
        assertEquals(200, r.status(), r.body());
        return new Watched(service, ip, port, sent, System.nanoTime());
    }

    private static void beat(ServerProcess p, Watched w) throws IOException {
        Http.Response r = Http.send(
                p.httpAddress(),
                "PUT",
                "/nacos/v1/ns/instance/beat?"
                        + Http.query(Http.params("serviceName", w.service, "ip", w.ip, "port", String.valueOf(w.port))),
                Map.of());
        assertEquals(200, r.status(), r.body());
    }

    private static boolean rawHealthy(ServerProcess p, Watched w) {
        return Boolean.TRUE.equals(listRaw(p, w.service).get(w.ip + ":" + w.port));
    }

    /** "ip:port" to healthy, as {@code GET /nacos/v1/ns/instance/list} lists the service. */
    private static Map<String, Boolean> listRaw(ServerProcess p, String service) {
        try {
            JsonNode list = Http.json(p.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=" + service);
            Map<String, Boolean> out = new LinkedHashMap<>();
            for (JsonNode h : list.get("hosts")) {
                out.put(
                        h.get("ip").asText() + ":" + h.get("port").asInt(),
                        h.get("healthy").asBoolean());
            }
            return out;
        } catch (IOException e) {
            throw new AssertionError("listing " + service + " on " + p, e);
        }
    }

    private NamingService client(ServerProcess p) throws Exception {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, p.httpAddress());
        return NacosFactory.createNamingService(props);
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * One instance whose last beat the server took between {@code sentNanos} and {@code
     * answeredNanos}, and what each observer saw of it: when it was first listed unhealthy, when first
     * missing, and whether it was ever listed healthy after that or back after going.
     */
    private static final class Watched {
        final String service;
        final String ip;
        final int port;
        final long sentNanos;
        final long answeredNanos;
        private final Map<String, long[]> seen = new LinkedHashMap<>(); // observer -> {unhealthyAt, goneAt}
        /** Observers that have listed it at least once: before that, its absence is replication lag, not expiry. */
        private final java.util.Set<String> listedBy = new java.util.HashSet<>();

        private final List<String> violations = new ArrayList<>();

        Watched(String service, String ip, int port, long sentNanos, long answeredNanos) {
            this.service = service;
            this.ip = ip;
            this.port = port;
            this.sentNanos = sentNanos;
            this.answeredNanos = answeredNanos;
        }

        /** {@code healthy} is null when the instance is not listed. */
        void observe(String observer, Boolean healthy) {
            long now = System.nanoTime();
            if (healthy != null) {
                listedBy.add(observer);
            } else if (!listedBy.contains(observer)) {
                String never = observer + " never listed it";
                if (TimeUnit.NANOSECONDS.toMillis(now - answeredNanos) > UNHEALTHY_MS && !violations.contains(never)) {
                    violations.add(never);
                }
                return;
            }
            long[] at = seen.computeIfAbsent(observer, o -> new long[] {0, 0});
            if (healthy == null) {
                if (at[1] == 0) {
                    at[1] = now;
                }
                if (at[0] == 0) {
                    at[0] = now; // gone without being seen unhealthy: checked against the unhealthy window too
                }
            } else if (at[1] != 0) {
                violations.add(observer + " listed it again " + sinceBeatMs(now) + " ms after its last beat");
            } else if (!healthy) {
                if (at[0] == 0) {
                    at[0] = now;
                }
            } else if (at[0] != 0) {
                violations.add(observer + " listed it healthy again " + sinceBeatMs(now) + " ms after its last beat");
            }
        }

        Map<String, long[]> observers() {
            return seen;
        }

        boolean goneEverywhere(int nodes) {
            return seen.size() >= nodes && seen.values().stream().allMatch(at -> at[1] != 0);
        }

        private long sinceBeatMs(long nanos) {
            return TimeUnit.NANOSECONDS.toMillis(nanos - sentNanos);
        }

        void check() {
            assertEquals(List.of(), violations, toString());
            for (Map.Entry<String, long[]> e : seen.entrySet()) {
                long[] at = e.getValue();
                String who = this + " on " + e.getKey();
                assertTrue(at[1] != 0, who + ": never gone");
                long unhealthyMin = TimeUnit.NANOSECONDS.toMillis(at[0] - sentNanos);
                long unhealthyMax = TimeUnit.NANOSECONDS.toMillis(at[0] - answeredNanos);
                long goneMin = TimeUnit.NANOSECONDS.toMillis(at[1] - sentNanos);
                long goneMax = TimeUnit.NANOSECONDS.toMillis(at[1] - answeredNanos);
                System.out.printf("%s: unhealthy %d ms, gone %d ms after its last beat%n", who, unhealthyMin, goneMin);
                assertTrue(unhealthyMin >= UNHEALTHY_MS, who + ": unhealthy after only " + unhealthyMin + " ms");
                assertTrue(
                        unhealthyMax <= UNHEALTHY_MS + CHECK_MS + SLACK_MS,
                        who + ": first listed unhealthy " + unhealthyMax + " ms after its last beat");
                assertTrue(goneMin >= GONE_MS, who + ": gone after only " + goneMin + " ms");
                assertTrue(
                        goneMax <= GONE_MS + CHECK_MS + SLACK_MS,
                        who + ": still listed " + goneMax + " ms after its last beat");
            }
        }

        @Override
        public String toString() {
            return service + "/" + ip + ":" + port;
        }
    }
}
