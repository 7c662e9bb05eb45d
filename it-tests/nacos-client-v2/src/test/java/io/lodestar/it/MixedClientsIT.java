package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two generations of the official client on one server: nacos-client 1.4.x (HTTP: long-poll
 * listeners, heartbeats, UDP pushes) and this module's 2.x or 3.x (gRPC) see each other's configs,
 * instances and changes, as they do on Nacos during a migration.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MixedClientsIT {
    private static final Duration SOON = Duration.ofSeconds(15);

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    private Nacos1Client http;
    private ConfigService grpcConfig;
    private NamingService grpcNaming;

    private void connect(ServerProcess server) throws Exception {
        http = new Nacos1Client(server.httpAddress());
        grpcConfig = clients.config(server.httpAddress(), null);
        grpcNaming = clients.naming(server.httpAddress());
    }

    @AfterEach
    void shutDown() throws Exception {
        if (http != null) {
            http.close();
        }
    }

    @Test
    void configsAndTheirChangesCrossBetweenAnHttpAndAGrpcClient() throws Exception {
        connect(cluster.startStandalone("mixed-config"));
        BlockingQueue<String> heardOverGrpc = new LinkedBlockingQueue<>();
        BlockingQueue<String> heardOverHttp = new LinkedBlockingQueue<>();
        grpcConfig.addListener("mixed.yaml", "G", new AbstractListener() {
            @Override
            public void receiveConfigInfo(String configInfo) {
                heardOverGrpc.add(configInfo);
            }
        });
        http.addListener("mixed.yaml", "G", heardOverHttp::add);

        assertTrue(http.publishConfig("mixed.yaml", "G", "from 1.4"));
        assertEquals("from 1.4", grpcConfig.getConfig("mixed.yaml", "G", 3000));
        assertEquals("from 1.4", heardOverGrpc.poll(SOON.toSeconds(), TimeUnit.SECONDS), "the gRPC listener hears it");
        assertEquals("from 1.4", heardOverHttp.poll(SOON.toSeconds(), TimeUnit.SECONDS), "the 1.4 listener too");

        assertTrue(grpcConfig.publishConfig("mixed.yaml", "G", "from grpc"));
        assertEquals("from grpc", http.getConfig("mixed.yaml", "G"));
        assertEquals("from grpc", heardOverHttp.poll(SOON.toSeconds(), TimeUnit.SECONDS), "the 1.4 listener hears it");
        assertEquals("from grpc", heardOverGrpc.poll(SOON.toSeconds(), TimeUnit.SECONDS), "the gRPC listener too");
    }

    @Test
    void instancesAndTheirEventsCrossBetweenAnHttpAndAGrpcClient() throws Exception {
        connect(cluster.startStandalone("mixed-naming"));
        BlockingQueue<Set<String>> grpcEvents = new LinkedBlockingQueue<>();
        BlockingQueue<Set<String>> httpEvents = new LinkedBlockingQueue<>();
        grpcNaming.subscribe("mixed-svc", event -> {
            if (event instanceof NamingEvent e) {
                grpcEvents.add(addresses(e.getInstances()));
            }
        });
        http.subscribe("mixed-svc", instances -> httpEvents.add(new TreeSet<>(instances)));

        http.registerInstance("mixed-svc", "127.0.0.1", 7101);
        awaitEvent(grpcEvents, Set.of("127.0.0.1:7101"), "the gRPC subscriber hears the 1.4 registration");
        grpcNaming.registerInstance("mixed-svc", "127.0.0.1", 7102);
        awaitEvent(httpEvents, Set.of("127.0.0.1:7101", "127.0.0.1:7102"), "the 1.4 subscriber hears the gRPC one");
        // the gRPC client answers from the list last pushed to it, which may come after the 1.4 poll's
        awaitEvent(grpcEvents, Set.of("127.0.0.1:7101", "127.0.0.1:7102"), "the gRPC subscriber hears its own");
        assertEquals(Set.of("127.0.0.1:7101", "127.0.0.1:7102"), new TreeSet<>(http.instances("mixed-svc")));
        assertEquals(Set.of("127.0.0.1:7101", "127.0.0.1:7102"), addresses(grpcNaming.getAllInstances("mixed-svc")));

        grpcNaming.deregisterInstance("mixed-svc", "127.0.0.1", 7102);
        awaitEvent(httpEvents, Set.of("127.0.0.1:7101"), "the 1.4 subscriber hears the gRPC deregistration");
        http.deregisterInstance("mixed-svc", "127.0.0.1", 7101);
        awaitEvent(grpcEvents, Set.of(), "the gRPC subscriber hears the 1.4 deregistration");
    }

    private static Set<String> addresses(List<Instance> instances) {
        Set<String> out = new TreeSet<>();
        instances.forEach(i -> out.add(i.getIp() + ":" + i.getPort()));
        return out;
    }

    /** Waits for an event listing exactly {@code expected}; events with other lists on the way are passed over. */
    private static void awaitEvent(BlockingQueue<Set<String>> events, Set<String> expected, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + SOON.toNanos();
        Set<String> last = null;
        for (long left = SOON.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            Set<String> event = events.poll(left, TimeUnit.NANOSECONDS);
            if (expected.equals(event)) {
                return;
            }
            last = event == null ? last : event;
        }
        throw new AssertionError(what + ": no event listing " + expected + " within " + SOON + " (last: " + last + ")");
    }
}
