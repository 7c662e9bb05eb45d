package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.NacosFactory;
import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator's views answer for the whole cluster: a listener held on one node and a subscriber
 * on another are listed by a third, each with the node holding it; a killed member is listed as
 * unreachable within the deadline while the others' rows still come back.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterViewsIT {
    /** The members' answer deadline (2 s) plus the asking node's own work and the round trip. */
    private static final Duration ANSWER_BOUND = Duration.ofSeconds(6);

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** HTTP/1.1, so the held poll has its own connection, as a 1.x client's has. */
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    @Test
    void aListenerOnOneNodeAndASubscriberOnAnotherAreListedByAThirdUntilItsMemberDies() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess a = nodes.get(0);
        ServerProcess b = nodes.get(1);
        ServerProcess c = nodes.get(2);
        assertEquals(200, StandaloneServerIT.publish(a, "watched", "v1").status());
        Await.until(
                Duration.ofSeconds(10),
                "the config on B",
                () -> "v1".equals(StandaloneServerIT.read(b, "watched").body()));
        String md5 = md5("v1");

        CompletableFuture<HttpResponse<String>> poll = http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://" + b.httpAddress() + "/nacos/v1/cs/configs/listener"))
                        .timeout(Duration.ofSeconds(90))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Long-Pulling-Timeout", "60000")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "Listening-Configs=watched%02DEFAULT_GROUP%02" + md5 + "%01"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        Http.Response subscribed =
                Http.get(c.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=watched-svc&udpPort=45678");
        assertEquals(200, subscribed.status(), subscribed.body());

        JsonNode[] listeners = {null};
        Await.until(Duration.ofSeconds(15), "B's held poll listed by A", () -> {
            listeners[0] = Http.json(a.httpAddress(), "/nacos/v1/cs/configs/listener?dataId=watched");
            return row(listeners[0].path("listeners"), "node", b.httpAddress()) != null;
        });
        JsonNode held = row(listeners[0].path("listeners"), "node", b.httpAddress());
        assertEquals("http-long-poll", held.path("protocol").asText(), held.toString());
        assertEquals(md5, held.path("md5").asText(), held.toString());
        assertEquals(
                md5,
                listeners[0]
                        .path("lisentersGroupkeyStatus")
                        .path(held.path("ip").asText())
                        .asText());
        assertEquals(3, listeners[0].path("nodes").size(), listeners[0].toString());
        listeners[0].path("nodes").forEach(n -> assertTrue(n.path("reachable").asBoolean(), n.toString()));

        JsonNode byIp = Http.json(
                a.httpAddress(), "/nacos/v1/cs/listener?ip=" + held.path("ip").asText());
        assertEquals(
                md5,
                byIp.path("lisentersGroupkeyStatus")
                        .path("watched+DEFAULT_GROUP")
                        .asText(),
                byIp.toString());

        JsonNode subscribers = Http.json(a.httpAddress(), "/nacos/v1/ns/service/subscribers?serviceName=watched-svc");
        JsonNode udp = row(subscribers.path("subscribers"), "node", c.httpAddress());
        assertNotNull(udp, "C's UDP subscriber listed by A: " + subscribers);
        assertEquals("udp-push", udp.path("protocol").asText(), udp.toString());
        assertTrue(udp.path("addrStr").asText().endsWith(":45678"), udp.toString());

        // a member's readiness may lag behind its start on a loaded machine: UP is awaited, not assumed
        JsonNode[] seen = {null};
        Await.until(
                Duration.ofSeconds(30),
                "every member UP in A's view",
                () -> {
                    seen[0] = a.view();
                    return seen[0].path("members").size() == 3
                            && StreamSupport.stream(seen[0].path("members").spliterator(), false)
                                    .allMatch(m -> "UP".equals(m.path("status").asText()));
                },
                () -> seen[0]);
        JsonNode view = seen[0];
        for (JsonNode m : view.path("members")) {
            assertTrue(m.path("term").asLong() >= 1, view.toString());
            assertTrue(m.path("appliedIndex").asLong() >= 1, view.toString());
            assertTrue(m.has("commitIndex") && m.has("readiness") && m.has("distro"), view.toString());
        }

        c.kill();
        long start = System.nanoTime();
        JsonNode afterKill = Http.json(a.httpAddress(), "/nacos/v1/ns/service/subscribers?serviceName=watched-svc");
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(ANSWER_BOUND) < 0, "answered within the deadline, took " + took);
        JsonNode dead = row(afterKill.path("nodes"), "node", c.httpAddress());
        assertNotNull(dead, afterKill.toString());
        assertFalse(dead.path("reachable").asBoolean(), dead.toString());
        assertFalse(dead.path("error").asText().isEmpty(), dead.toString());
        assertEquals(0, afterKill.path("count").asInt(), "the dead member's subscriber went with it: " + afterKill);

        JsonNode stillHeld = Http.json(a.httpAddress(), "/nacos/v1/cs/configs/listener?dataId=watched");
        assertNotNull(row(stillHeld.path("listeners"), "node", b.httpAddress()), stillHeld.toString());
        assertFalse(row(stillHeld.path("nodes"), "node", c.httpAddress())
                .path("reachable")
                .asBoolean());

        start = System.nanoTime();
        JsonNode viewAfter = a.view();
        took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(ANSWER_BOUND) < 0, "the cluster view answered within the deadline, took " + took);
        JsonNode deadMember = row(viewAfter.path("members"), "address", c.raftAddress());
        assertEquals("UNREACHABLE", deadMember.path("status").asText(), viewAfter.toString());
        assertEquals(
                "UP",
                row(viewAfter.path("members"), "address", b.raftAddress())
                        .path("status")
                        .asText());

        assertEquals(200, StandaloneServerIT.publish(a, "watched", "v2").status());
        assertEquals(200, poll.get(30, TimeUnit.SECONDS).statusCode(), "the held poll is woken by the change");
    }

    /** nacos-client 1.4 (HTTP): its long-poll, its beat-kept instance and its UDP subscription, all on B. */
    @Test
    void aNacosClientsListenInstanceAndSubscriptionOnOneNodeAreListedByAnother() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess a = nodes.get(0);
        ServerProcess b = nodes.get(1);
        Properties props = new Properties();
        props.put(PropertyKeyConst.SERVER_ADDR, b.httpAddress()); // it talks to B only
        ConfigService config = NacosFactory.createConfigService(props);
        NamingService naming = NacosFactory.createNamingService(props);
        try {
            config.addListener("client-watched", "DEFAULT_GROUP", new AbstractListener() {
                @Override
                public void receiveConfigInfo(String content) {}
            });
            naming.registerInstance("client-svc", "127.0.0.77", 7777);
            naming.subscribe("client-svc", event -> {});

            JsonNode[] answer = {null};
            Await.until(Duration.ofSeconds(30), "B's long-poll listed by A", () -> {
                answer[0] = Http.json(a.httpAddress(), "/nacos/v1/cs/configs/listener?dataId=client-watched");
                JsonNode r = row(answer[0].path("listeners"), "node", b.httpAddress());
                return r != null && r.path("protocol").asText().equals("http-long-poll");
            });

            Await.until(Duration.ofSeconds(30), "the beat-kept instance listed by A", () -> {
                answer[0] = Http.json(a.httpAddress(), "/nacos/v1/ns/catalog/instances?serviceName=client-svc");
                return row(answer[0].path("list"), "ip", "127.0.0.77") != null;
            });
            JsonNode heldBy = row(answer[0].path("list"), "ip", "127.0.0.77").path("heldBy");
            assertEquals("http-beat", heldBy.path("kind").asText(), heldBy.toString());

            Await.until(Duration.ofSeconds(30), "B's UDP subscriber listed by A", () -> {
                answer[0] = Http.json(a.httpAddress(), "/nacos/v1/ns/service/subscribers?serviceName=client-svc");
                return row(answer[0].path("subscribers"), "node", b.httpAddress()) != null;
            });
            JsonNode sub = row(answer[0].path("subscribers"), "node", b.httpAddress());
            assertEquals("udp-push", sub.path("protocol").asText(), sub.toString());
        } finally {
            naming.shutDown();
            config.shutDown();
        }
    }

    private static JsonNode row(JsonNode rows, String field, String value) {
        for (JsonNode r : rows) {
            if (value.equals(r.path(field).asText())) {
                return r;
            }
        }
        return null;
    }

    private static String md5(String s) throws Exception {
        byte[] d = java.security.MessageDigest.getInstance("MD5")
                .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(d);
    }
}
