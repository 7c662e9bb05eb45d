package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The official nacos-client 1.4.7 configured with every node of a 3-node cluster
 * ({@code serverAddr = "h1:p1,h2:p2,h3:p3"}), as applications deploy it: it must keep working
 * while one node is SIGKILLed and restarted, with no change to its configuration.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NacosClientClusterIT {
    /** How long a listener may take to hear a change, failover included (the client waits 2 s after a failed poll). */
    private static final Duration HEAR = Duration.ofSeconds(30);

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final List<AutoCloseable> clients = new ArrayList<>();

    @AfterEach
    void shutDownClients() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
    }

    static String serverAddr(List<ServerProcess> nodes) {
        return nodes.stream().map(ServerProcess::httpAddress).collect(Collectors.joining(","));
    }

    private ConfigService configService(String serverAddr) throws Exception {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, serverAddr);
        ConfigService c = NacosFactory.createConfigService(props);
        clients.add(c::shutDown);
        return c;
    }

    private NamingService namingService(String serverAddr) throws Exception {
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, serverAddr);
        NamingService n = NacosFactory.createNamingService(props);
        clients.add(n::shutDown);
        return n;
    }

    /** Drains {@code heard} until {@code expected} comes (intermediate contents may be skipped, as the client does). */
    static void awaitHeard(BlockingQueue<String> heard, String expected, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        List<String> got = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            String s = heard.poll(200, TimeUnit.MILLISECONDS);
            if (s != null) {
                got.add(s);
                if (s.equals(expected)) {
                    return;
                }
            }
        }
        throw new AssertionError("listener did not hear '" + expected + "' within " + within + "; heard " + got);
    }

    /**
     * Publishes through the client until it reports success. The client itself tries each server
     * in turn; while the group elects a leader it may still answer false, as real Nacos does, and
     * the application retries. Returns how many attempts reported false.
     */
    static int publishUntilAccepted(ConfigService c, String dataId, String content) throws Exception {
        AtomicReference<Integer> refused = new AtomicReference<>(0);
        Await.until(Duration.ofSeconds(30), "publish of '" + content + "' accepted", () -> {
            if (c.publishConfig(dataId, "DEFAULT_GROUP", content)) {
                return true;
            }
            refused.set(refused.get() + 1);
            return false;
        });
        return refused.get();
    }

    private static int held(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), "/lodestar/v1/config/listeners")
                .get("held")
                .asInt();
    }

    @Test
    void configServiceWithEveryNodeKeepsPublishingReadingAndListeningWhileANodeIsKilledAndRestarted() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        String addr = serverAddr(nodes);
        ConfigService publisher = configService(addr);
        ConfigService listening = configService(addr);
        BlockingQueue<String> heard = new LinkedBlockingQueue<>();
        listening.addListener("cluster.yaml", "DEFAULT_GROUP", new AbstractListener() {
            @Override
            public void receiveConfigInfo(String configInfo) {
                heard.add(configInfo);
            }
        });

        assertTrue(publisher.publishConfig("cluster.yaml", "DEFAULT_GROUP", "before: 1"));
        awaitHeard(heard, "before: 1", HEAR);
        assertEquals("before: 1", publisher.getConfig("cluster.yaml", "DEFAULT_GROUP", 3000));

        // kill the node that holds the listener's long-poll, so the listener has to move
        AtomicReference<ServerProcess> holder = new AtomicReference<>();
        Await.until(Duration.ofSeconds(40), "the listener's poll held on some node", () -> {
            for (ServerProcess p : nodes) {
                if (held(p) > 0) {
                    holder.set(p);
                    return true;
                }
            }
            return false;
        });
        ServerProcess victim = holder.get();
        cluster.kill(victim);

        int refused = publishUntilAccepted(publisher, "cluster.yaml", "during: 1");
        awaitHeard(heard, "during: 1", HEAR);
        refused += publishUntilAccepted(publisher, "cluster.yaml", "during: 2");
        awaitHeard(heard, "during: 2", HEAR);
        assertEquals("during: 2", publisher.getConfig("cluster.yaml", "DEFAULT_GROUP", 3000));
        assertEquals("during: 2", listening.getConfig("cluster.yaml", "DEFAULT_GROUP", 3000));

        cluster.start(victim);
        assertEquals(
                "during: 2", StandaloneServerIT.read(victim, "cluster.yaml").body(), "the restarted node caught up");
        refused += publishUntilAccepted(publisher, "cluster.yaml", "after: 1");
        awaitHeard(heard, "after: 1", HEAR);
        assertEquals("after: 1", listening.getConfig("cluster.yaml", "DEFAULT_GROUP", 3000));
        for (ServerProcess p : nodes) {
            Await.until(
                    Duration.ofSeconds(10),
                    "after: 1 on " + p.httpAddress(),
                    () -> "after: 1"
                            .equals(StandaloneServerIT.read(p, "cluster.yaml").body()));
        }
        System.out.println("killed " + victim.httpAddress()
                + " (held the listener's poll); publishes refused meanwhile: " + refused);
    }

    private static Set<String> endpoints(List<Instance> instances) {
        return instances.stream().map(i -> i.getIp() + ":" + i.getPort()).collect(Collectors.toSet());
    }

    @Test
    void namingServiceWithEveryNodeRegistersAndDiscoversWhileANodeIsKilledAndRestarted() throws Exception {
        Assumptions.assumeTrue(
                NamingApi.present(),
                "POST /nacos/v1/ns/instance answers 404: the naming HTTP API is not in this build yet");
        List<ServerProcess> nodes = cluster.start(3);
        String addr = serverAddr(nodes);
        NamingService provider = namingService(addr);
        NamingService consumer = namingService(addr);
        BlockingQueue<Set<String>> events = new LinkedBlockingQueue<>();
        AtomicReference<Set<String>> lastEvent = new AtomicReference<>(Set.of());
        consumer.subscribe("orders", event -> {
            if (event instanceof NamingEvent e) {
                Set<String> now = endpoints(e.getInstances());
                lastEvent.set(now);
                events.add(now);
            }
        });

        // The instance deregistered below beats every second and goes 6 s after its last beat. The
        // 1.x client stops beating when it deregisters, but a beat already on its way (say, stuck
        // on the node that was just restarted, then retried on another) arrives after the
        // deregistration and registers the instance again, as Nacos does too; the instance then
        // lives until its delete timeout. A short one keeps that inside the wait below.
        Instance shortLived = new Instance();
        shortLived.setIp("127.1.0.1");
        shortLived.setPort(8080);
        shortLived.setMetadata(java.util.Map.of(
                "preserved.heart.beat.interval",
                "1000",
                "preserved.heart.beat.timeout",
                "3000",
                "preserved.ip.delete.timeout",
                "6000"));
        provider.registerInstance("orders", shortLived);
        provider.registerInstance("orders", "127.1.0.2", 8080);
        Await.until(
                HEAR,
                "both instances discovered",
                () -> endpoints(consumer.getAllInstances("orders")).equals(Set.of("127.1.0.1:8080", "127.1.0.2:8080")));
        Await.until(
                HEAR,
                "the subscriber told of both",
                () -> lastEvent.get().equals(Set.of("127.1.0.1:8080", "127.1.0.2:8080")));

        ServerProcess victim = nodes.get(1);
        cluster.kill(victim);
        provider.registerInstance("orders", "127.1.0.3", 8080);
        Await.until(
                HEAR,
                "an instance registered while a node is down is discovered",
                () -> endpoints(consumer.getAllInstances("orders")).contains("127.1.0.3:8080"));
        Await.until(HEAR, "the subscriber told of it", () -> lastEvent.get().contains("127.1.0.3:8080"));
        Await.until(
                HEAR,
                "healthy instances are still served",
                () -> endpoints(consumer.selectInstances("orders", true)).size() == 3);

        cluster.start(victim);
        provider.deregisterInstance("orders", "127.1.0.1", 8080);
        Set<String> remaining = Set.of("127.1.0.2:8080", "127.1.0.3:8080");
        // every node serves the same list, the restarted one included (ephemeral instances replicate to it)
        for (ServerProcess p : nodes) {
            Await.until(
                    HEAR,
                    "the list on " + p.httpAddress() + " without the deregistered instance",
                    () -> listedOn(p).equals(remaining));
        }
        Await.until(
                HEAR,
                "a deregistered instance disappears from the client's view",
                () -> endpoints(consumer.getAllInstances("orders")).equals(remaining));
        Await.until(
                HEAR,
                "the subscriber told of the removal",
                () -> lastEvent.get().equals(remaining));
        assertNotNull(events.peek(), "the subscriber got events");
    }

    private static Set<String> listedOn(ServerProcess p) throws Exception {
        var list = Http.json(p.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=DEFAULT_GROUP%40%40orders");
        Set<String> hosts = new java.util.HashSet<>();
        list.get("hosts")
                .forEach(h ->
                        hosts.add(h.get("ip").asText() + ":" + h.get("port").asInt()));
        return hosts;
    }
}
