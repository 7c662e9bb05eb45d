package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.alibaba.nacos.api.naming.pojo.ListView;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The official nacos-client 1.4.7 NamingService against a real standalone server process. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NacosClientNamingIT {
    /**
     * How soon a subscriber must hear of a change. Without UDP push the 1.4.7 client only learns
     * of it at its next poll, every 10 s (cacheMillis); a push arrives in well under a second.
     */
    private static final Duration PUSHED_WITHIN = Duration.ofSeconds(3);

    private static final String NS = "/nacos/v1/ns";

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final List<NamingService> clients = new ArrayList<>();

    @AfterEach
    void shutDownClients() throws Exception {
        for (NamingService c : clients) {
            c.shutDown();
        }
    }

    private ServerProcess server() {
        ServerProcess p = cluster.startStandalone("nacos-naming");
        return p;
    }

    private NamingService client(ServerProcess p) throws Exception {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, p.httpAddress());
        NamingService c = NacosFactory.createNamingService(props);
        clients.add(c);
        return c;
    }

    private static Instance instance(String ip, int port, double weight, String cluster) {
        Instance i = new Instance();
        i.setIp(ip);
        i.setPort(port);
        i.setWeight(weight);
        i.setClusterName(cluster);
        return i;
    }

    /** "ip:port" of each instance, sorted. */
    private static List<String> addresses(List<Instance> instances) {
        List<String> out = new ArrayList<>();
        instances.forEach(i -> out.add(i.getIp() + ":" + i.getPort()));
        out.sort(null);
        return out;
    }

    private static JsonNode metrics(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), NS + "/operator/metrics");
    }

    @Test
    void registerListAndDeregisterThroughTheOfficialClient() throws Exception {
        ServerProcess p = server();
        NamingService client = client(p);
        assertEquals("UP", client.getServerStatus());
        client.registerInstance("orders", "G", "127.0.0.1", 8081);
        Instance withMeta = instance("127.0.0.2", 8082, 2.5, "c1");
        withMeta.setMetadata(Map.of("zone", "east"));
        client.registerInstance("orders", "G", withMeta);

        List<Instance> all = client.getAllInstances("orders", "G", false);
        assertEquals(List.of("127.0.0.1:8081", "127.0.0.2:8082"), addresses(all));
        Instance second =
                all.stream().filter(i -> i.getPort() == 8082).findFirst().orElseThrow();
        assertEquals("G@@orders", second.getServiceName());
        assertEquals("c1", second.getClusterName());
        assertEquals(2.5, second.getWeight());
        assertEquals("east", second.getMetadata().get("zone"));
        assertTrue(second.isHealthy() && second.isEnabled() && second.isEphemeral());
        assertEquals("127.0.0.2#8082#c1#G@@orders", second.getInstanceId());

        ListView<String> services = client.getServicesOfServer(1, 10, "G");
        assertEquals(1, services.getCount());
        assertEquals(List.of("orders"), services.getData());

        client.deregisterInstance("orders", "G", "127.0.0.1", 8081);
        assertEquals(List.of("127.0.0.2:8082"), addresses(client.getAllInstances("orders", "G", false)));
        client.deregisterInstance("orders", "G", "127.0.0.1", 8081); // already gone: still fine
        client.deregisterInstance("orders", "G", withMeta);
        assertTrue(client.getAllInstances("orders", "G", false).isEmpty());
    }

    @Test
    void selectInstancesFiltersByHealth() throws Exception {
        ServerProcess p = server();
        // persistent instances keep the health they are given where no probe runs (checker NONE)
        assertEquals(
                200,
                Http.postForm(p.httpAddress(), NS + "/service", params("serviceName", "G@@pay"))
                        .status());
        assertEquals(
                200,
                Http.send(
                                p.httpAddress(),
                                "PUT",
                                NS + "/cluster",
                                params(
                                        "serviceName",
                                        "G@@pay",
                                        "clusterName",
                                        "DEFAULT",
                                        "healthChecker",
                                        "{\"type\":\"NONE\"}"))
                        .status());
        NamingService client = client(p);
        Instance up = instance("127.0.1.1", 80, 1, "DEFAULT");
        up.setEphemeral(false);
        Instance down = instance("127.0.1.2", 80, 1, "DEFAULT");
        down.setEphemeral(false);
        down.setHealthy(false);
        client.registerInstance("pay", "G", up);
        client.registerInstance("pay", "G", down);

        assertEquals(List.of("127.0.1.1:80"), addresses(client.selectInstances("pay", "G", true, false)));
        assertEquals(List.of("127.0.1.2:80"), addresses(client.selectInstances("pay", "G", false, false)));
        assertEquals(
                "127.0.1.1", client.selectOneHealthyInstance("pay", "G", false).getIp());
        assertFalse(client.getAllInstances("pay", "G", false).stream().anyMatch(Instance::isEphemeral));
    }

    @Test
    void aSubscriberHearsEachChangeWithinMomentsThroughUdpPush() throws Exception {
        ServerProcess p = server();
        NamingService watcher = client(p);
        NamingService publisher = client(p);
        BlockingQueue<List<Instance>> heard = new LinkedBlockingQueue<>();
        watcher.subscribe("live", "G", event -> {
            if (event instanceof NamingEvent e) {
                heard.add(e.getInstances());
            }
        });
        assertEquals(1, metrics(p).get("subscribeCount").asInt(), "subscribing queried the list with a udpPort");

        publisher.registerInstance("live", "G", "127.0.2.1", 1);
        expectHeard(heard, List.of("127.0.2.1:1"));
        awaitPushAcks(p, 1);
        publisher.registerInstance("live", "G", "127.0.2.2", 2);
        expectHeard(heard, List.of("127.0.2.1:1", "127.0.2.2:2"));
        awaitPushAcks(p, 2);
        publisher.deregisterInstance("live", "G", "127.0.2.1", 1);
        expectHeard(heard, List.of("127.0.2.2:2"));
        awaitPushAcks(p, 3);
    }

    /**
     * Waits until the client has acknowledged {@code count} pushes: its own acks prove the lists came
     * over UDP, not from a lucky poll. Awaited after each change, because the client fires its event
     * before it sends the ack, and a push superseded by the next change's push before its ack
     * arrives is, rightly, not counted as acknowledged.
     */
    private static void awaitPushAcks(ServerProcess p, int count) throws Exception {
        Await.until(
                Duration.ofSeconds(5),
                count + " push acks from the client",
                () -> metrics(p).get("udpPushAckCount").asInt() >= count);
    }

    /** Waits up to {@link #PUSHED_WITHIN} for an event listing exactly {@code expected}. */
    private static void expectHeard(BlockingQueue<List<Instance>> heard, List<String> expected) throws Exception {
        long deadline = System.nanoTime() + PUSHED_WITHIN.toNanos();
        List<String> last = null;
        while (true) {
            long left = deadline - System.nanoTime();
            List<Instance> event = left > 0 ? heard.poll(left, TimeUnit.NANOSECONDS) : null;
            if (event == null) {
                fail("no event listing " + expected + " within " + PUSHED_WITHIN + "; last heard " + last);
            }
            last = addresses(event);
            if (last.equals(expected)) {
                return;
            }
        }
    }

    @Test
    void clusterFiltersApplyToQueriesAndToPushes() throws Exception {
        ServerProcess p = server();
        NamingService client = client(p);
        client.registerInstance("zoned", "G", instance("127.0.3.1", 1, 1, "c1"));
        client.registerInstance("zoned", "G", instance("127.0.3.2", 1, 1, "c2"));

        assertEquals(List.of("127.0.3.1:1"), addresses(client.getAllInstances("zoned", "G", List.of("c1"), false)));
        assertEquals(
                List.of("127.0.3.2:1"), addresses(client.selectInstances("zoned", "G", List.of("c2"), true, false)));
        assertEquals(
                List.of("127.0.3.1:1", "127.0.3.2:1"),
                addresses(client.getAllInstances("zoned", "G", List.of("c1", "c2"), false)));

        NamingService watcher = client(p);
        BlockingQueue<List<Instance>> heard = new LinkedBlockingQueue<>();
        watcher.subscribe("zoned", "G", List.of("c1"), event -> {
            if (event instanceof NamingEvent e) {
                heard.add(e.getInstances());
            }
        });
        client.registerInstance("zoned", "G", instance("127.0.3.3", 1, 1, "c1"));
        expectHeard(heard, List.of("127.0.3.1:1", "127.0.3.3:1"));
        assertEquals(
                List.of("127.0.3.1:1", "127.0.3.3:1"),
                addresses(watcher.getAllInstances("zoned", "G", List.of("c1"))),
                "the subscriber's cache");
    }

    @Test
    void selectOneHealthyInstanceHonoursWeights() throws Exception {
        ServerProcess p = server();
        NamingService client = client(p);
        client.registerInstance("weighted", "G", instance("127.0.4.1", 1, 1, "DEFAULT"));
        client.registerInstance("weighted", "G", instance("127.0.4.9", 9, 9, "DEFAULT"));
        NamingService selector = client(p);
        Await.until(
                Duration.ofSeconds(10),
                "both instances in the selector's cache",
                () -> selector.getAllInstances("weighted", "G").size() == 2);

        int draws = 2000;
        int heavy = 0;
        for (int i = 0; i < draws; i++) {
            if (selector.selectOneHealthyInstance("weighted", "G").getPort() == 9) {
                heavy++;
            }
        }
        double share = (double) heavy / draws;
        // expected 0.9; one standard deviation over 2,000 draws is 0.0067, so 0.03 is 4.5 of them
        assertEquals(0.9, share, 0.03, heavy + " of " + draws + " draws chose the weight-9 instance");
    }

    @Test
    void anEphemeralInstanceTurnsUnhealthyThenIsRemovedOnceItsClientStopsBeating() throws Exception {
        ServerProcess p = server();
        NamingService stays = client(p);
        NamingService leaves = client(p);
        stays.registerInstance("expiring", "G", "127.0.5.1", 1);
        leaves.registerInstance("expiring", "G", "127.0.5.2", 2);
        assertEquals(
                List.of("127.0.5.1:1", "127.0.5.2:2"), addresses(stays.selectInstances("expiring", "G", true, false)));

        clients.remove(leaves);
        leaves.shutDown(); // stops its beats; it does not deregister
        long stopped = System.nanoTime();
        // unhealthy 15 s after the last beat, checked every 5 s; removed after 30 s
        Await.until(
                Duration.ofSeconds(30),
                "127.0.5.2 unhealthy",
                () -> stays.getAllInstances("expiring", "G", false).stream()
                        .anyMatch(i -> i.getPort() == 2 && !i.isHealthy()));
        assertEquals(
                List.of("127.0.5.1:1"),
                addresses(stays.selectInstances("expiring", "G", true, false)),
                "the beating instance stays healthy");
        Duration left = Duration.ofSeconds(45).minusNanos(System.nanoTime() - stopped);
        Await.until(
                left,
                "127.0.5.2 removed",
                () -> addresses(stays.getAllInstances("expiring", "G", false)).equals(List.of("127.0.5.1:1")));
    }

    @Test
    void persistentInstancesSurviveARestartAndTheClientRegistersItsEphemeralOnesAgain() throws Exception {
        ServerProcess p = server();
        NamingService client = client(p);
        Instance db = instance("127.0.6.1", 3306, 2, "db");
        db.setEphemeral(false);
        db.setMetadata(Map.of("role", "primary"));
        client.registerInstance("mysql", "G", db);
        client.registerInstance("web", "G", "127.0.6.2", 8080);
        assertEquals(List.of("127.0.6.1:3306"), addresses(client.getAllInstances("mysql", "G", false)));

        assertEquals(0, cluster.stop(p), "a clean stop");
        cluster.start(p);
        p.awaitSettled();

        List<Instance> after = client(p).getAllInstances("mysql", "G", false);
        assertEquals(List.of("127.0.6.1:3306"), addresses(after), "the persistent instance is still registered");
        Instance kept = after.get(0);
        assertFalse(kept.isEphemeral());
        assertEquals("db", kept.getClusterName());
        assertEquals(2.0, kept.getWeight());
        assertEquals("primary", kept.getMetadata().get("role"));
        // the ephemeral one died with the old process; the client's next beats learn that (code
        // 20404) and register it again
        Await.until(
                Duration.ofSeconds(30),
                "127.0.6.2 registered again by its client",
                () -> addresses(client.getAllInstances("web", "G", false)).equals(List.of("127.0.6.2:8080")));
    }
}
