package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.Event;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official nacos-client 2.x NamingService, which registers ephemeral instances, queries and
 * subscribes only over gRPC, against real server processes.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class GrpcNamingIT {
    private static final Duration SOON = Duration.ofSeconds(10);

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    private static Instance instance(String ip, int port, double weight) {
        Instance i = new Instance();
        i.setIp(ip);
        i.setPort(port);
        i.setWeight(weight);
        return i;
    }

    /** The "ip:port" of the instances (or only the healthy ones) the server lists over HTTP for the service. */
    private static Set<String> listedOverHttp(ServerProcess p, String service) throws Exception {
        return listedOverHttp(p, service, false);
    }

    static Set<String> listedOverHttp(ServerProcess p, String service, boolean healthyOnly) throws Exception {
        JsonNode list = Http.json(
                p.httpAddress(), "/nacos/v1/ns/instance/list?healthyOnly=" + healthyOnly + "&serviceName=" + service);
        Set<String> out = new TreeSet<>();
        for (JsonNode h : list.path("hosts")) {
            out.add(h.path("ip").asText() + ":" + h.path("port").asInt());
        }
        return out;
    }

    /** The whole list answer, for a failure's message. */
    private static String listing(ServerProcess p, String service) {
        try {
            return Http.json(p.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=" + service)
                    .path("hosts")
                    .toString();
        } catch (Exception e) {
            return "no list: " + e;
        }
    }

    private static Set<String> addresses(List<Instance> instances) {
        Set<String> out = new TreeSet<>();
        for (Instance i : instances) {
            out.add(i.getIp() + ":" + i.getPort());
        }
        return out;
    }

    @Test
    void registerQueryAndDeregisterThroughTheOfficialClient() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-naming");
        NamingService a = clients.naming(server.httpAddress());
        NamingService b = clients.naming(server.httpAddress());
        assertEquals("UP", a.getServerStatus());

        a.registerInstance("orders", "127.0.0.11", 8080);
        Await.until(
                SOON,
                "the instance is listed to another client",
                () -> addresses(b.getAllInstances("orders", false)).equals(Set.of("127.0.0.11:8080")));
        assertEquals(Set.of("127.0.0.11:8080"), listedOverHttp(server, "orders"), "and over HTTP");

        a.deregisterInstance("orders", "127.0.0.11", 8080);
        Await.until(
                SOON,
                "the instance is gone",
                () -> b.getAllInstances("orders", false).isEmpty());
    }

    @Test
    void aBatchIsRegisteredWholeAndSelectionHonoursHealthAndWeight() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-batch");
        NamingService a = clients.naming(server.httpAddress());
        NamingService b = clients.naming(server.httpAddress());
        a.batchRegisterInstance(
                "weighted", "DEFAULT_GROUP", List.of(instance("127.0.0.21", 80, 1.0), instance("127.0.0.22", 80, 0.0)));
        Await.until(
                SOON,
                "both are listed",
                () -> addresses(b.getAllInstances("weighted")).equals(Set.of("127.0.0.21:80", "127.0.0.22:80")));
        Set<Double> weights = new TreeSet<>();
        for (Instance i : b.getAllInstances("weighted")) {
            assertTrue(i.isHealthy(), i + " is healthy");
            weights.add(i.getWeight());
        }
        assertEquals(Set.of(0.0, 1.0), weights, "the weights as registered");
        for (int n = 0; n < 20; n++) {
            assertEquals("127.0.0.21", b.selectOneHealthyInstance("weighted").getIp(), "weight 0 is never chosen");
        }
    }

    @Test
    void aSubscriberHearsAnotherClientsRegistrationAndDeregistration() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-subscribe");
        NamingService a = clients.naming(server.httpAddress());
        NamingService b = clients.naming(server.httpAddress());
        BlockingQueue<Set<String>> events = new LinkedBlockingQueue<>();
        b.subscribe("watched", (Event e) -> {
            if (e instanceof NamingEvent ne) {
                events.add(addresses(ne.getInstances()));
            }
        });
        a.registerInstance("watched", "127.0.0.31", 9000);
        assertEquals(Set.of("127.0.0.31:9000"), awaitEvent(events, s -> !s.isEmpty()));
        a.deregisterInstance("watched", "127.0.0.31", 9000);
        assertEquals(Set.of(), awaitEvent(events, Set::isEmpty));
    }

    @Test
    void aPersistentInstanceIsRegisteredAndProbed() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-persistent");
        NamingService a = clients.naming(server.httpAddress());
        try (ServerSocket listener = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Instance durable = instance("127.0.0.1", listener.getLocalPort(), 1.0);
            durable.setEphemeral(false);
            a.registerInstance("durable", durable);
            Await.until(
                    SOON,
                    "the persistent instance is listed",
                    () -> listedOverHttp(server, "durable").equals(Set.of("127.0.0.1:" + listener.getLocalPort())));
            JsonNode detail = Http.json(
                    server.httpAddress(),
                    "/nacos/v1/ns/instance?serviceName=durable&ip=127.0.0.1&port=" + listener.getLocalPort());
            assertEquals(false, detail.path("ephemeral").asBoolean(true), detail.toString());
            a.deregisterInstance("durable", durable);
            Await.until(
                    SOON,
                    "deregistered",
                    () -> listedOverHttp(server, "durable").isEmpty());
        }
    }

    @Test
    void aClientsInstanceIsGoneSoonAfterItsShutDown() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-shutdown");
        NamingService a = clients.naming(server.httpAddress());
        a.registerInstance("leaving", "127.0.0.41", 7000);
        Await.until(SOON, "registered", () -> listedOverHttp(server, "leaving").equals(Set.of("127.0.0.41:7000")));
        long t0 = System.nanoTime();
        clients.shutDown(a);
        Await.until(
                Duration.ofSeconds(5),
                "gone after shutDown()",
                () -> listedOverHttp(server, "leaving").isEmpty());
        System.out.printf("instance gone %d ms after shutDown()%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @Test
    void anHttpRegistrationAndAGrpcOneSeeEachOther() throws Exception {
        ServerProcess server = cluster.startStandalone("grpc-mixed-naming");
        NamingService grpc = clients.naming(server.httpAddress());
        BlockingQueue<Set<String>> events = new LinkedBlockingQueue<>();
        grpc.subscribe("mixed", (Event e) -> events.add(addresses(((NamingEvent) e).getInstances())));
        Http.Response r = Http.postForm(
                server.httpAddress(),
                "/nacos/v1/ns/instance",
                Http.params("serviceName", "mixed", "ip", "127.0.0.51", "port", "1000"));
        assertEquals(200, r.status(), r.body());
        assertEquals(Set.of("127.0.0.51:1000"), awaitEvent(events, s -> !s.isEmpty()), "an HTTP one is pushed");
        grpc.registerInstance("mixed", "127.0.0.52", 1000);
        assertEquals(
                Set.of("127.0.0.51:1000", "127.0.0.52:1000"),
                awaitEvent(events, s -> s.size() == 2),
                "a gRPC one joins it");
        Await.until(
                SOON, "both over HTTP", () -> listedOverHttp(server, "mixed").size() == 2);
    }

    @Test
    void aRegistrationThroughOneNodeIsListedByEveryNode() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        NamingService a = clients.naming(nodes.get(1).httpAddress());
        a.registerInstance("everywhere", "127.0.0.61", 6000);
        for (ServerProcess n : nodes) {
            Await.until(
                    SOON, n + " lists it", () -> listedOverHttp(n, "everywhere").equals(Set.of("127.0.0.61:6000")));
        }
    }

    @Test
    void registrationsAndSubscriptionsSurviveAKillOfTheNodeTheClientIsConnectedTo() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        String all =
                String.join(",", nodes.stream().map(ServerProcess::httpAddress).toList());
        NamingService a = clients.naming(all);
        a.registerInstance("survivor", "127.0.0.71", 7100);
        ServerProcess connected = connectedNode(nodes);
        ServerProcess other = cluster.othersThan(connected).get(0);
        NamingService watcher = clients.naming(other.httpAddress());
        BlockingQueue<Set<String>> events = new LinkedBlockingQueue<>();
        watcher.subscribe("survivor", (Event e) -> events.add(addresses(((NamingEvent) e).getInstances())));
        assertEquals(Set.of("127.0.0.71:7100"), awaitEvent(events, s -> !s.isEmpty()));

        cluster.kill(connected);
        long t0 = System.nanoTime();
        ServerProcess stillUp = cluster.othersThan(connected).stream()
                .filter(n -> n != other)
                .findFirst()
                .orElseThrow();
        Await.until(
                Duration.ofSeconds(10),
                "the client reconnected to a survivor",
                () -> grpcConnections(stillUp) + grpcConnections(other) >= 2);
        System.out.printf("reconnected %d ms after the kill%n", (System.nanoTime() - t0) / 1_000_000);
        // listed healthy throughout the next 40 s: past the delete timeout, so its registration is
        // the client's redo, kept alive by the node it now talks to
        Await.holdsFor(
                Duration.ofSeconds(40),
                "listed healthy by a survivor",
                () -> listedOverHttp(other, "survivor", true).equals(Set.of("127.0.0.71:7100")));
    }

    /**
     * A client that knew only the node that died cannot register again elsewhere: the survivors
     * remove its instances within 30 s, once they have been silent for their beat timeout (15 s)
     * with their holder gone, which leaves a client that can reconnect the time to do so.
     */
    @Test
    void theSurvivorsRemoveADeadNodesClientsInstances() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess doomed = nodes.get(0);
        NamingService onlyThere = clients.naming(doomed.httpAddress());
        for (int i = 0; i < 3; i++) { // three services: some are likely owned by the node that dies
            onlyThere.registerInstance("orphaned-" + i, "127.0.0.7" + i, 7700 + i);
        }
        ServerProcess survivor = nodes.get(1);
        for (int i = 0; i < 3; i++) {
            String service = "orphaned-" + i;
            String address = "127.0.0.7" + i + ":" + (7700 + i);
            Await.until(SOON, "listed", () -> listedOverHttp(survivor, service).equals(Set.of(address)));
        }
        cluster.kill(doomed);
        long t0 = System.nanoTime();
        Await.until(Duration.ofSeconds(30), "every instance of the dead node's client removed", () -> {
            for (int i = 0; i < 3; i++) {
                if (!listedOverHttp(survivor, "orphaned-" + i).isEmpty()) {
                    return false;
                }
            }
            return true;
        });
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("removed %d ms after the kill%n", ms);
        // the last beat was at most one interval (5 s) before the kill
        assertTrue(ms > 10_000, "not before the beat timeout: " + ms + " ms");
    }

    @Test
    void aStoppingNodeSendsItsClientsToAnotherBeforeItStops() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        String all =
                String.join(",", nodes.stream().map(ServerProcess::httpAddress).toList());
        NamingService a = clients.naming(all);
        a.registerInstance("moved", "127.0.0.75", 7500);
        ServerProcess connected = connectedNode(nodes);
        ServerProcess other = cluster.othersThan(connected).get(0);
        Await.until(SOON, "listed", () -> listedOverHttp(other, "moved", true).equals(Set.of("127.0.0.75:7500")));

        assertEquals(0, cluster.stop(connected), "a clean stop");
        assertTrue(
                connected.logText().contains("sending 1 clients to other servers"),
                "the node reset its client before stopping");
        List<ServerProcess> survivors = cluster.othersThan(connected);
        Await.until(SOON, "the client is connected to a survivor", () -> connectedTo(survivors) != null);
        long stopped = System.nanoTime();
        Await.holdsFor(
                Duration.ofSeconds(25),
                "listed healthy by a survivor",
                () -> listedOverHttp(other, "moved", true).equals(Set.of("127.0.0.75:7500")),
                () -> listing(other, "moved") + " on " + other.httpAddress() + ", "
                        + (System.nanoTime() - stopped) / 1_000_000 + " ms after the stop, client on "
                        + connectedTo(survivors));
    }

    private static ServerProcess connectedNode(List<ServerProcess> nodes) {
        return Await.result(SOON, "the node the client connected to", () -> connectedTo(nodes));
    }

    private static ServerProcess connectedTo(List<ServerProcess> nodes) {
        for (ServerProcess n : nodes) {
            if (grpcConnections(n) > 0) {
                return n;
            }
        }
        return null;
    }

    static int grpcConnections(ServerProcess p) {
        try {
            Http.Response m = Http.get(p.httpAddress(), "/metrics");
            for (String line : m.body().split("\n")) {
                if (line.startsWith("lodestar_grpc_connections")) {
                    return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } catch (Exception e) {
            // not answering: none
        }
        return 0;
    }

    private static Set<String> awaitEvent(
            BlockingQueue<Set<String>> events, java.util.function.Predicate<Set<String>> what)
            throws InterruptedException {
        long deadline = System.nanoTime() + SOON.toNanos();
        while (System.nanoTime() < deadline) {
            Set<String> e = events.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (e != null && what.test(e)) {
                return e;
            }
        }
        throw new AssertionError("no such event within " + SOON);
    }
}
