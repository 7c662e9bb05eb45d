package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import com.fasterxml.jackson.databind.JsonNode;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

/**
 * A 3-node cluster of containers from the server image ({@code Dockerfile}, built by
 * {@link LodestarImage} without any registry) on a Docker network of its own: each node's
 * {@code --host} is its network alias ({@code node0}..{@code node2}), so the members find each
 * other by name and bind to their own address; each container has a memory limit. The tests
 * reach the nodes through their mapped HTTP ports.
 *
 * <p>One cluster serves the class; the test that stops the leader's container runs last. Every
 * test is skipped, with the reason, where no Docker engine is reachable.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ContainerClusterIT {
    private static final int HTTP = 8848;
    private static final int RAFT = 7848;
    private static final long MEMORY_LIMIT = 512L << 20;
    private static final Path CLIENT_DIR;

    static {
        // nacos-client 1.4.7 reads these once, when its classes load (whichever test class loads them first)
        try {
            CLIENT_DIR = Files.createTempDirectory("nacos-client-container-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.setProperty("JM.SNAPSHOT.PATH", CLIENT_DIR.toString());
        System.setProperty("JM.LOG.PATH", CLIENT_DIR.resolve("logs").toString());
        System.setProperty(
                "com.alibaba.nacos.naming.cache.dir",
                CLIENT_DIR.resolve("naming").toString());
    }

    private static final AtomicBoolean FAILED = new AtomicBoolean();

    @RegisterExtension
    static final TestWatcher WATCHER = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            FAILED.set(true);
        }
    };

    /** Why the tests skip, null when an engine is there (each test reports the skip, so the reason shows in the report). */
    private static String noEngine;

    private static Network network;
    private static final List<GenericContainer<?>> NODES = new ArrayList<>();
    /** Acknowledged publishes, checked again after the leader's container is stopped. */
    private static final Map<String, String> ACKNOWLEDGED = new ConcurrentHashMap<>();

    @BeforeAll
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    static void startCluster() throws Exception {
        boolean available;
        try {
            available = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            // e.g. Testcontainers believes it runs inside a container (/.dockerenv) and tries to find
            // the host's address by running an image it would have to pull
            throw new AssertionError(
                    "a Docker engine answers but Testcontainers cannot work out the address of its "
                            + "mapped ports; where the engine runs on this machine set TESTCONTAINERS_HOST_OVERRIDE=localhost "
                            + "(.ci/run does)",
                    e);
        }
        if (!available) {
            noEngine = "no Docker engine reachable (DOCKER_HOST, or /var/run/docker.sock): "
                    + "the container tests need one; .ci/run starts one";
            System.out.println("ContainerClusterIT skipped: " + noEngine);
            return;
        }
        long t0 = System.nanoTime();
        String image = LodestarImage.ensure(DockerClientFactory.instance().client());
        long imageMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        network = Network.newNetwork();
        String peers = "node0:" + RAFT + ",node1:" + RAFT + ",node2:" + RAFT;
        for (int i = 0; i < 3; i++) {
            String alias = "node" + i;
            GenericContainer<?> node = new GenericContainer<>(DockerImageName.parse(image))
                    .withNetwork(network)
                    .withNetworkAliases(alias)
                    .withCreateContainerCmdModifier(cmd -> {
                        cmd.withHostName(alias);
                        cmd.getHostConfig().withMemory(MEMORY_LIMIT).withMemorySwap(MEMORY_LIMIT);
                    })
                    .withEnv("JAVA_OPTS", "-Xmx256m -XX:+UseSerialGC")
                    .withEnv("LODESTAR_CLUSTER_SECRET", LodestarCluster.SECRET)
                    .withExposedPorts(HTTP)
                    .withCommand(
                            "--auth",
                            "off",
                            "--host",
                            alias,
                            "--port",
                            String.valueOf(HTTP),
                            "--raft-port",
                            String.valueOf(RAFT),
                            "--peers",
                            peers,
                            "--probe-allow",
                            "127.0.0.0/8") // the container's own loopback only
                    .waitingFor(Wait.forLogMessage(".*Lodestar started in .*\\s", 1)
                            .withStartupTimeout(Duration.ofMinutes(3)));
            NODES.add(node);
        }
        Startables.deepStart(NODES).get(4, TimeUnit.MINUTES);
        for (GenericContainer<?> node : NODES) {
            awaitSettled(node);
        }
        System.out.printf(
                "container cluster ready: image %s in %d ms, cluster %d ms after that%n",
                image, imageMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) - imageMs);
    }

    @BeforeEach
    void requireEngine() {
        Assumptions.assumeTrue(noEngine == null, noEngine);
    }

    @AfterAll
    static void stopCluster() {
        for (GenericContainer<?> node : NODES) {
            if (FAILED.get()) {
                System.out.println("===== log of " + node.getNetworkAliases() + " =====\n" + logsOf(node));
            }
            node.stop();
        }
        NODES.clear();
        if (network != null) {
            network.close();
        }
        LodestarCluster.deleteTree(CLIENT_DIR);
    }

    private static String logsOf(GenericContainer<?> node) {
        try {
            return node.getLogs();
        } catch (RuntimeException e) {
            return "(no logs: " + e + ")";
        }
    }

    static String address(GenericContainer<?> node) {
        return node.getHost() + ":" + node.getMappedPort(HTTP);
    }

    static void awaitReady(GenericContainer<?> node) {
        Await.until(Duration.ofSeconds(90), node.getNetworkAliases() + " ready", () -> {
            if (!node.isRunning()) {
                throw new AssertionError("container exited:\n" + logsOf(node));
            }
            return Http.get(address(node), "/nacos/v1/console/health/readiness").status() == 200;
        });
    }

    /** Ready, and every member's HTTP address is in the store (a node records its own shortly after it is ready). */
    static void awaitSettled(GenericContainer<?> node) {
        awaitReady(node);
        Await.until(Duration.ofSeconds(30), node.getNetworkAliases() + " settled", () -> {
            for (JsonNode m : Http.json(address(node), "/lodestar/v1/cluster").get("members")) {
                if (m.get("httpAddress").isNull()) {
                    return false;
                }
            }
            return true;
        });
    }

    private static String alias(GenericContainer<?> node) {
        return node.getNetworkAliases().stream()
                .filter(a -> a.startsWith("node"))
                .findFirst()
                .orElseThrow();
    }

    private static Http.Response publish(GenericContainer<?> node, String dataId, String content) throws IOException {
        return Http.postForm(
                address(node),
                "/nacos/v1/cs/configs",
                Http.params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
    }

    private static String read(GenericContainer<?> node, String dataId) throws IOException {
        Http.Response r = Http.get(
                address(node),
                "/nacos/v1/cs/configs?" + Http.query(Http.params("dataId", dataId, "group", "DEFAULT_GROUP")));
        return r.status() == 200 ? r.body() : null;
    }

    @Test
    @Order(1)
    void eachContainerRunsUnderItsMemoryLimitFromTheImagesClassArchiveAndTheMembersNameEachOtherByAlias()
            throws Exception {
        DockerClient docker = DockerClientFactory.instance().client();
        for (GenericContainer<?> node : NODES) {
            InspectContainerResponse info =
                    docker.inspectContainerCmd(node.getContainerId()).exec();
            assertEquals(MEMORY_LIMIT, info.getHostConfig().getMemory(), "memory limit of " + alias(node));
            JsonNode view = Http.json(address(node), "/lodestar/v1/cluster");
            assertEquals(alias(node) + ":" + RAFT, view.get("self").asText());
            Set<String> members = new java.util.TreeSet<>();
            view.get("members")
                    .forEach(m -> members.add(m.get("address").asText() + " "
                            + m.get("httpAddress").asText()));
            assertEquals(Set.of("node0:7848 node0:8848", "node1:7848 node1:8848", "node2:7848 node2:8848"), members);
            // the server (PID 1: the entrypoint execs java) mapped the image's archive of its classes;
            // the image has no grep, so the shell reads its memory map itself
            var mapped = node.execInContainer(
                    "/bin/sh",
                    "-c",
                    "while read -r line; do case \"$line\" in *lodestar.jsa*) exit 0 ;; esac; done < /proc/1/maps; exit 1");
            assertEquals(
                    0,
                    mapped.getExitCode(),
                    alias(node) + " did not map /opt/lodestar/lodestar.jsa: " + mapped.getStdout()
                            + mapped.getStderr());
        }
    }

    @Test
    @Order(2)
    void aPublishThroughOneContainerIsReadThroughTheOthers() throws Exception {
        for (int i = 0; i < NODES.size(); i++) {
            String dataId = "through-" + alias(NODES.get(i));
            Http.Response r = publish(NODES.get(i), dataId, "written via " + alias(NODES.get(i)));
            assertEquals(200, r.status(), r.body());
            ACKNOWLEDGED.put(dataId, "written via " + alias(NODES.get(i)));
        }
        for (GenericContainer<?> reader : NODES) {
            for (Map.Entry<String, String> e : ACKNOWLEDGED.entrySet()) {
                Await.until(
                        Duration.ofSeconds(15),
                        e.getKey() + " through " + alias(reader),
                        () -> e.getValue().equals(read(reader, e.getKey())));
            }
        }
    }

    @Test
    @Order(3)
    void theNacosClientRegistersAndDiscoversThroughTheContainers() throws Exception {
        Assumptions.assumeTrue(
                NamingApi.answersInstance(address(NODES.get(0))),
                "POST /nacos/v1/ns/instance answers 404: the naming HTTP API is not in this build yet");
        String serverAddr = NODES.stream().map(ContainerClusterIT::address).collect(Collectors.joining(","));
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, serverAddr);
        NamingService provider = NacosFactory.createNamingService(props);
        NamingService consumer = NacosFactory.createNamingService(props);
        try {
            AtomicReference<Set<String>> told = new AtomicReference<>(Set.of());
            consumer.subscribe("inventory", event -> {
                if (event instanceof NamingEvent e) {
                    told.set(endpoints(e.getInstances()));
                }
            });
            provider.registerInstance("inventory", "127.2.0.1", 9090);
            provider.registerInstance("inventory", "127.2.0.2", 9090);
            Set<String> both = Set.of("127.2.0.1:9090", "127.2.0.2:9090");
            Await.until(
                    Duration.ofSeconds(30),
                    "both instances discovered",
                    () -> endpoints(consumer.getAllInstances("inventory")).equals(both));
            Await.until(
                    Duration.ofSeconds(30),
                    "the subscriber told of both",
                    () -> told.get().equals(both));
            for (GenericContainer<?> node : NODES) {
                Await.until(Duration.ofSeconds(30), "the list through " + alias(node), () -> {
                    JsonNode list = Http.json(
                            address(node), "/nacos/v1/ns/instance/list?serviceName=DEFAULT_GROUP%40%40inventory");
                    Set<String> hosts = new java.util.HashSet<>();
                    list.get("hosts")
                            .forEach(h -> hosts.add(
                                    h.get("ip").asText() + ":" + h.get("port").asInt()));
                    return hosts.equals(both);
                });
            }
            provider.deregisterInstance("inventory", "127.2.0.1", 9090);
            Await.until(
                    Duration.ofSeconds(30),
                    "the subscriber told of the removal",
                    () -> told.get().equals(Set.of("127.2.0.2:9090")));
        } finally {
            provider.shutDown();
            consumer.shutDown();
        }
    }

    private static Set<String> endpoints(List<Instance> instances) {
        return instances.stream().map(i -> i.getIp() + ":" + i.getPort()).collect(Collectors.toSet());
    }

    @Test
    @Order(4)
    void stoppingTheLeadersContainerHandsOverAndWritesResumeOnTheOthers() throws Exception {
        String leader = Http.json(address(NODES.get(0)), "/lodestar/v1/cluster")
                .get("leader")
                .asText();
        GenericContainer<?> stopped = NODES.stream()
                .filter(n -> leader.equals(alias(n) + ":" + RAFT))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container is the leader " + leader));
        List<GenericContainer<?>> survivors =
                NODES.stream().filter(n -> n != stopped).toList();

        DockerClient docker = DockerClientFactory.instance().client();
        long t0 = System.nanoTime();
        docker.stopContainerCmd(stopped.getContainerId()).withTimeout(30).exec(); // SIGTERM, then SIGKILL after 30 s
        Long exit = docker.inspectContainerCmd(stopped.getContainerId())
                .exec()
                .getState()
                .getExitCodeLong();
        assertEquals(0L, exit, "the leader's server exits cleanly on docker stop:\n" + logsOf(stopped));

        AtomicReference<String> newLeader = new AtomicReference<>();
        Await.until(Duration.ofSeconds(30), "a publish accepted through " + alias(survivors.get(0)), () -> {
            if (publish(survivors.get(0), "after-stop", "written after the leader's container stopped")
                            .status()
                    != 200) {
                return false;
            }
            newLeader.set(Http.json(address(survivors.get(0)), "/lodestar/v1/cluster")
                    .get("leader")
                    .asText());
            return true;
        });
        long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        ACKNOWLEDGED.put("after-stop", "written after the leader's container stopped");
        assertNotEquals(leader, newLeader.get(), "a new leader");
        assertTrue(publish(survivors.get(1), "after-stop-2", "through the other survivor")
                        .status()
                == 200);
        ACKNOWLEDGED.put("after-stop-2", "through the other survivor");
        for (GenericContainer<?> reader : survivors) {
            for (Map.Entry<String, String> e : ACKNOWLEDGED.entrySet()) {
                Await.until(
                        Duration.ofSeconds(15),
                        e.getKey() + " through " + alias(reader),
                        () -> e.getValue().equals(read(reader, e.getKey())));
            }
        }
        System.out.println("docker stop of leader " + leader + ": writes accepted again after " + failoverMs
                + " ms (stop included), new leader " + newLeader.get());
    }
}
