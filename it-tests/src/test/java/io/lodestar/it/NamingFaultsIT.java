package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ephemeral instances (Distro, AP) under faults, with real processes in network namespaces:
 * the death of a service's owner, and a partition with registrations on both sides. "Clients"
 * here are threads beating as nacos-client 1.x does (a beat carrying the instance, so an
 * instance the server lost is registered again).
 */
class NamingFaultsIT {
    /** Instances that are unhealthy after 3 s without beats and removed after 6 s. */
    private static final String SHORT_LIVED = "{\"preserved.heart.beat.interval\":\"1000\","
            + "\"preserved.heart.beat.timeout\":\"3000\",\"preserved.ip.delete.timeout\":\"6000\"}";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theInstancesOfADeadOwnerStayWhileTheirClientsBeatElsewhereAndExpireOnceTheyStop() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        cluster.leader();
        ServerProcess dying = nodes.get(2);
        List<String> services = servicesOwnedBy(nodes, dying, 3);
        try (Beater client = new Beater(nodes.get(1), services, "127.50.0.1")) {
            // both survivors hold the owner's copy before it dies (node 1 forwarded the registration
            // to the owner and, like node 0, gets the instance by the owner's replication)
            for (String s : services) {
                for (ServerProcess survivor : List.of(nodes.get(0), nodes.get(1))) {
                    Await.until(
                            Duration.ofSeconds(20),
                            s + " listed on " + survivor,
                            () -> ips(survivor, s).equals(Set.of("127.50.0.1")));
                }
            }
            cluster.kill(dying);
            long killedAt = System.nanoTime();
            // through three delete timeouts after the owner died, nothing goes: the new owners took over
            while (System.nanoTime() - killedAt < TimeUnit.SECONDS.toNanos(20)) {
                for (String s : services) {
                    assertEquals(Set.of("127.50.0.1"), ips(nodes.get(0), s), s + " on node 0 after the owner died");
                    assertEquals(Set.of("127.50.0.1"), ips(nodes.get(1), s), s + " on node 1 after the owner died");
                }
                Thread.sleep(200);
            }
        }
        long stoppedAt = System.nanoTime();
        // the instance itself is gone once its delete timeout has passed on the survivor that owns it now
        for (String s : services) {
            Await.until(
                    Duration.ofSeconds(30),
                    s + " to expire on both survivors",
                    () -> gone(nodes.get(0), s, "127.50.0.1") && gone(nodes.get(1), s, "127.50.0.1"));
        }
        System.out.printf(
                "instances expired %d ms after their client stopped (delete timeout 6000 ms)%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt));
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void registrationAndDiscoveryWorkOnBothSidesOfAPartitionAndConvergeAfterTheHeal() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        cluster.leader();
        ServerProcess minority = nodes.get(2);
        ServerProcess majority = nodes.get(0);
        cluster.isolate(minority);
        try (Beater onMajority = new Beater(majority, List.of("split"), "127.60.0.1");
                Beater onMinority = new Beater(minority, List.of("split"), "127.60.0.2")) {
            Await.until(
                    Duration.ofSeconds(30),
                    "the majority side to serve its registration",
                    () -> ips(majority, "split").contains("127.60.0.1")
                            && ips(nodes.get(1), "split").contains("127.60.0.1"));
            Await.until(
                    Duration.ofSeconds(30),
                    "the minority side to serve its registration",
                    () -> ips(minority, "split").contains("127.60.0.2"));
            long healedAt = System.nanoTime();
            cluster.heal();
            // the copies merge instance by instance: no side ever stops listing its own instance, and
            // once every node lists both, every node keeps listing both (watched past a verification round)
            Set<String> both = Set.of("127.60.0.1", "127.60.0.2");
            long deadline = healedAt + TimeUnit.SECONDS.toNanos(60);
            long agreedAt = 0;
            while (agreedAt == 0 || System.nanoTime() - agreedAt < TimeUnit.SECONDS.toNanos(7)) {
                boolean allAgree = true;
                for (ServerProcess p : nodes) {
                    Set<String> listed = ips(p, "split");
                    String own = p == minority ? "127.60.0.2" : "127.60.0.1";
                    assertTrue(listed.contains(own), p + " stopped listing " + own + " after the heal: " + listed);
                    assertTrue(
                            agreedAt == 0 || listed.equals(both),
                            p + " lost an instance after every node agreed: " + listed);
                    allAgree &= listed.equals(both);
                }
                if (allAgree && agreedAt == 0) {
                    agreedAt = System.nanoTime();
                    System.out.printf(
                            "all nodes agree %d ms after the heal%n",
                            TimeUnit.NANOSECONDS.toMillis(agreedAt - healedAt));
                }
                assertTrue(
                        agreedAt != 0 || System.nanoTime() < deadline,
                        "the nodes did not agree within 60 s of the heal");
                Thread.sleep(50); // the polling period of the watch
            }
        }
    }

    /** Services named so that {@code owner} owns them (Distro: CRC32 of the key over the sorted members). */
    private static List<String> servicesOwnedBy(List<ServerProcess> nodes, ServerProcess owner, int count)
            throws Exception {
        List<String> members = new ArrayList<>();
        for (JsonNode m : nodes.get(0).view().get("members")) {
            members.add(m.get("address").asText());
        }
        members.sort(null);
        String ownerAddress = owner.view().get("self").asText();
        List<String> out = new ArrayList<>();
        for (int n = 0; out.size() < count; n++) {
            CRC32 crc = new CRC32();
            crc.update(("public\u0000DEFAULT_GROUP\u0000owned-" + n).getBytes(StandardCharsets.UTF_8));
            if (members.get((int) (crc.getValue() % members.size())).equals(ownerAddress)) {
                out.add("owned-" + n);
            }
        }
        return out;
    }

    private static boolean gone(ServerProcess p, String service, String ip) throws Exception {
        return Http.get(
                                p.httpAddress(),
                                "/nacos/v1/ns/instance?"
                                        + Http.query(params("serviceName", service, "ip", ip, "port", "8080")))
                        .status()
                == 404;
    }

    private static Set<String> ips(ServerProcess p, String service) throws Exception {
        Set<String> ips = new TreeSet<>();
        for (JsonNode h : Http.json(p.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=" + service)
                .get("hosts")) {
            ips.add(h.get("ip").asText());
        }
        return ips;
    }

    /** A client of one node: registers its instance in each service, then beats every 500 ms until closed. */
    private static final class Beater implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Beater(ServerProcess node, List<String> services, String ip) throws Exception {
            for (String s : services) {
                Http.Response r = Http.postForm(
                        node.httpAddress(),
                        "/nacos/v1/ns/instance",
                        params("serviceName", s, "ip", ip, "port", "8080", "metadata", SHORT_LIVED));
                assertEquals(200, r.status(), r.body());
            }
            thread = new Thread(
                    () -> {
                        while (running.get()) {
                            for (String s : services) {
                                String beat = "{\"ip\":\"" + ip + "\",\"port\":8080,\"serviceName\":\"DEFAULT_GROUP@@"
                                        + s + "\",\"cluster\":\"DEFAULT\",\"weight\":1.0,\"metadata\":" + SHORT_LIVED
                                        + "}";
                                try {
                                    Http.send(
                                            node.httpAddress(),
                                            "PUT",
                                            "/nacos/v1/ns/instance/beat?"
                                                    + Http.query(params(
                                                            "serviceName",
                                                            "DEFAULT_GROUP@@" + s,
                                                            "ip",
                                                            ip,
                                                            "port",
                                                            "8080")),
                                            params("beat", beat));
                                } catch (Exception e) {
                                    // a beat lost to the fault; the next one follows
                                }
                            }
                            try {
                                Thread.sleep(500);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "beats-" + ip);
            thread.start();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }
    }
}
