package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.alibaba.nacos.shaded.io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The connection balance after a rolling restart: the clients of a stopped node pile onto the
 * others, and once it is back the members even the counts out by themselves, every node within the
 * documented threshold, with no client lost and every official client's listeners and
 * subscriptions still served where it was moved to.
 *
 * <p>300 connections: 40 official nacos-client 2.x instances (20 config clients with a listener,
 * 20 naming clients with a subscription), and 260 {@link FollowingClient}s, which follow a {@code
 * ConnectResetRequest} as the official client does (the official client runs threads of its own
 * per instance; 300 of them would not fit beside three servers on a small machine). In network
 * namespaces: the official client takes a server it is sent to only if its list has one at that IP.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ConnectionBalanceIT {
    private static final int OFFICIAL_CONFIG = 20;
    private static final int OFFICIAL_NAMING = 20;
    private static final int FOLLOWING = 260;
    private static final int TOTAL = OFFICIAL_CONFIG + OFFICIAL_NAMING + FOLLOWING;
    /** docs/grpc.md: max(share * 1.2, share + 10), share = ceil(300 / 3) = 100. */
    private static final int THRESHOLD = 120;
    /** A node over the threshold moves clients down to the share, so the emptiest ends up near it too. */
    private static final int FLOOR = 80;

    private static final String DATA_ID = "balance-it";
    private static final String GROUP = "DEFAULT_GROUP";
    private static final String SERVICE = "balance-it-service";

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    private final NioEventLoopGroup loop = new NioEventLoopGroup(2);
    private final ScheduledExecutorService tasks = Executors.newScheduledThreadPool(4);
    private final List<FollowingClient> following = new ArrayList<>();

    @AfterEach
    void closeFollowing() {
        following.forEach(FollowingClient::close);
        tasks.shutdownNow();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void afterARestartTheCountsEvenOutAndEveryListenerAndSubscriberIsStillServed() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        List<String> addresses = nodes.stream().map(ServerProcess::httpAddress).toList();
        String serverList = String.join(",", addresses);

        Map<Integer, AtomicReference<String>> heard = new ConcurrentHashMap<>();
        for (int i = 0; i < OFFICIAL_CONFIG; i++) {
            ConfigService config = clients.config(serverList, null);
            AtomicReference<String> last = new AtomicReference<>();
            heard.put(i, last);
            config.addListener(DATA_ID, GROUP, new AbstractListener() {
                @Override
                public void receiveConfigInfo(String content) {
                    last.set(content);
                }
            });
        }
        Map<Integer, AtomicReference<Set<String>>> seen = new ConcurrentHashMap<>();
        for (int i = 0; i < OFFICIAL_NAMING; i++) {
            NamingService naming = clients.naming(serverList);
            AtomicReference<Set<String>> last = new AtomicReference<>(Set.of());
            seen.put(i, last);
            naming.subscribe(SERVICE, event -> {
                if (event instanceof NamingEvent e) {
                    last.set(addressesOf(e.getInstances()));
                }
            });
        }
        for (int i = 0; i < FOLLOWING; i++) {
            following.add(new FollowingClient(addresses, loop, tasks).connect(addresses.get(i % addresses.size())));
        }
        Await.until(
                Duration.ofSeconds(60),
                "all " + TOTAL + " connections set up",
                () -> total(nodes) == TOTAL,
                () -> counts(nodes));

        ServerProcess restarted = nodes.get(2);
        cluster.stop(restarted);
        List<ServerProcess> stayed = cluster.othersThan(restarted);
        Await.until(
                Duration.ofSeconds(60),
                "every client on the nodes that stayed up",
                () -> total(stayed) == TOTAL,
                () -> counts(stayed));
        System.out.println("while " + restarted + " is down: " + counts(stayed));
        assertTrue(
                stayed.stream().anyMatch(n -> grpcConnections(n) > THRESHOLD),
                "the restart piled clients over the threshold: " + counts(stayed));

        cluster.start(restarted);
        long back = System.nanoTime();
        Await.until(
                Duration.ofSeconds(60),
                "every node within the threshold " + THRESHOLD + ", none under " + FLOOR + ", no client lost",
                () -> evened(nodes),
                () -> counts(nodes));
        System.out.println(
                "evened out in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back) + " ms: " + counts(nodes));
        // a client on its way is counted on both nodes for up to 3 s: the total is checked once the moves end
        Await.holdsFor(
                Duration.ofSeconds(6),
                "and stays so",
                () -> counts(nodes).values().stream().allMatch(n -> n >= FLOOR && n <= THRESHOLD),
                () -> counts(nodes));
        Await.until(
                Duration.ofSeconds(30), "no client lost once the moves end", () -> evened(nodes), () -> counts(nodes));
        int officialThere = officialClientsOn(restarted);
        assertTrue(officialThere > 0, "official clients were moved to the restarted node, not only light ones");
        assertTrue(
                following.stream().anyMatch(f -> f.server().equals(restarted.httpAddress())),
                "following clients were moved to the restarted node");
        JsonNode view = Http.json(nodes.get(0).httpAddress(), "/lodestar/v1/cluster");
        for (JsonNode member : view.path("members")) {
            assertTrue(
                    member.path("grpcConnections").isInt(), "each member's count in /lodestar/v1/cluster: " + member);
        }
        assertTrue(metric(restarted, "lodestar_grpc_connections_balanced_total") == 0, "nothing moved off it");
        double moved = stayed.stream()
                .mapToDouble(n -> metric(n, "lodestar_grpc_connections_balanced_total"))
                .sum();
        assertTrue(moved >= 60, "the nodes that stayed up count what they moved: " + moved);
        System.out.println(officialThere + " official clients on " + restarted + "; " + moved + " moved");

        // the moved clients still hear of changes: a publish reaches every listener ...
        Http.Response published = Http.postForm(
                restarted.httpAddress(),
                "/nacos/v1/cs/configs",
                Map.of("dataId", DATA_ID, "group", GROUP, "content", "after-the-balance"));
        assertEquals(200, published.status(), published.body());
        Await.until(
                Duration.ofSeconds(30),
                "every config listener hears the publish",
                () -> heard.values().stream().allMatch(h -> "after-the-balance".equals(h.get())),
                () -> heard.entrySet().stream()
                        .filter(e -> !"after-the-balance".equals(e.getValue().get()))
                        .map(Map.Entry::getKey)
                        .toList());
        // ... and a registration every subscriber
        Http.Response registered = Http.postForm(
                nodes.get(0).httpAddress(),
                "/nacos/v1/ns/instance",
                Map.of("serviceName", SERVICE, "ip", "10.1.2.3", "port", "8080", "ephemeral", "false"));
        assertEquals(200, registered.status(), registered.body());
        Await.until(
                Duration.ofSeconds(30),
                "every subscriber hears the registration",
                () -> seen.values().stream().allMatch(s -> s.get().contains("10.1.2.3:8080")),
                () -> seen.entrySet().stream()
                        .filter(e -> !e.getValue().get().contains("10.1.2.3:8080"))
                        .map(Map.Entry::getKey)
                        .toList());
    }

    private static boolean evened(List<ServerProcess> nodes) {
        Map<String, Integer> counts = counts(nodes);
        return counts.values().stream().mapToInt(Integer::intValue).sum() == TOTAL
                && counts.values().stream().allMatch(n -> n >= FLOOR && n <= THRESHOLD);
    }

    private static Set<String> addressesOf(List<Instance> instances) {
        return instances.stream().map(i -> i.getIp() + ":" + i.getPort()).collect(Collectors.toSet());
    }

    private static int grpcConnections(ServerProcess node) {
        return (int) metric(node, "lodestar_grpc_connections");
    }

    private static double metric(ServerProcess node, String name) {
        try {
            for (String line : Http.get(node.httpAddress(), "/metrics").body().split("\n")) {
                if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        } catch (Exception e) {
            // not answering: none
        }
        return 0;
    }

    private static int total(List<ServerProcess> nodes) {
        return nodes.stream().mapToInt(ConnectionBalanceIT::grpcConnections).sum();
    }

    private static Map<String, Integer> counts(List<ServerProcess> nodes) {
        Map<String, Integer> out = new LinkedHashMap<>();
        nodes.forEach(n -> out.put(n.httpAddress(), grpcConnections(n)));
        return out;
    }

    /** Official clients connected to {@code node}, told apart from the light ones by their version. */
    private static int officialClientsOn(ServerProcess node) throws Exception {
        int n = 0;
        for (JsonNode c : Http.json(node.httpAddress(), "/nacos/v2/core/loader/current")) {
            if (!FollowingClient.VERSION.equals(c.path("version").asText())) {
                n++;
            }
        }
        return n;
    }
}
