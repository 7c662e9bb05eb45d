package io.lodestar.api.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.grpc.RawGrpcClient;
import io.lodestar.api.json.Json;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The operator's views on one node: each lists what this node's clients hold, by protocol, and
 * names its one member as asked and reachable; a bad request is a 400 naming its field.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ViewsTest {
    private static final String MD5_NONE = "";

    @TempDir
    static Path dir;

    LodestarServer server;
    int port;
    int grpcPort;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void start() {
        port = FreePorts.next();
        grpcPort = FreePorts.next();
        server = LodestarServer.start(TestSettings.standalone(dir, port, grpcPort));
        Await.until(
                "ready",
                () -> send("GET", "/nacos/v1/console/health/readiness", null).statusCode() == 200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    static Stream<Arguments> badRequests() {
        return Stream.of(
                Arguments.of("/nacos/v1/cs/configs/listener?group=G", "dataId"),
                Arguments.of("/nacos/v1/cs/configs/listener?dataId=a&group=b%2Fc", "group"),
                Arguments.of("/nacos/v1/cs/configs/listener?dataId=a&tenant=x&namespaceId=y", "tenant"),
                Arguments.of("/nacos/v1/cs/listener", "ip"),
                Arguments.of("/nacos/v1/cs/listener?ip=example.com", "ip"),
                Arguments.of("/nacos/v1/cs/listener?ip=1.2.3.999", "ip"),
                Arguments.of("/nacos/v1/ns/service/subscribers", "serviceName"),
                Arguments.of("/nacos/v1/ns/service/subscribers?serviceName=s&pageNo=0", "pageNo"),
                Arguments.of("/nacos/v1/ns/service/subscribers?serviceName=s&pageSize=abc", "pageSize"),
                Arguments.of("/nacos/v1/ns/service/subscribers?serviceName=s&pageSize=100000", "pageSize"),
                Arguments.of("/nacos/v1/ns/service/subscribers?serviceName=A%40%40s&groupName=B", "groupName"),
                Arguments.of("/nacos/v1/ns/catalog/instances", "serviceName"),
                Arguments.of("/nacos/v1/ns/catalog/instances?serviceName=s&clusterName=a%2Fb", "clusterName"),
                Arguments.of("/nacos/v1/ns/catalog/instances?serviceName=s&pageNo=-1", "pageNo"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void aBadRequestIsA400NamingItsField(String path, String field) throws Exception {
        HttpResponse<String> r = send("GET", path, null);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains(field), () -> "names " + field + ": " + r.body());
    }

    @Test
    void aHeldLongPollAGrpcListenAndAPushSubscriptionAreEachListedWithTheirMd5() throws Exception {
        send("POST", "/nacos/v1/cs/configs", "dataId=seen&group=G&content=v1");
        String md5 = ContentMd5Hex.of("v1");
        CompletableFuture<HttpResponse<String>> poll = http.sendAsync(
                HttpRequest.newBuilder(uri("/nacos/v1/cs/configs/listener"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Long-Pulling-Timeout", "30000")
                        .POST(HttpRequest.BodyPublishers.ofString("Listening-Configs=seen%02G%02" + md5 + "%01"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        WebSocket ws = http.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + port + "/lodestar/v1/push"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        w.request(1);
                        return null;
                    }
                })
                .get();
        ws.sendText(
                        "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"seen\",\"group\":\"G\",\"md5\":\"" + md5
                                + "\"}]}",
                        true)
                .get();
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request(
                    "ConfigBatchListenRequest",
                    "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"seen\",\"group\":\"G\",\"tenant\":\"\","
                            + "\"md5\":\"" + md5 + "\"}]}");
            JsonNode[] body = {null};
            Await.until("three listeners", () -> {
                body[0] = json(send("GET", "/nacos/v1/cs/configs/listener?dataId=seen&group=G", null));
                return body[0].path("listeners").size() == 3;
            });
            JsonNode b = body[0];
            assertEquals(200, b.path("collectStatus").asInt());
            assertEquals(
                    md5, b.path("lisentersGroupkeyStatus").path("127.0.0.1").asText(), b.toString());
            for (String protocol : new String[] {"http-long-poll", "grpc", "push-channel"}) {
                JsonNode row = row(b.path("listeners"), "protocol", protocol);
                assertNotNull(row, () -> protocol + " listed: " + b);
                assertEquals(md5, row.path("md5").asText(), row.toString());
                assertEquals("127.0.0.1", row.path("ip").asText(), row.toString());
                assertEquals("127.0.0.1:" + port, row.path("node").asText(), row.toString());
            }
            assertEquals(1, b.path("nodes").size(), b.toString());
            assertTrue(b.path("nodes").get(0).path("reachable").asBoolean(), b.toString());

            JsonNode byIp = json(send("GET", "/nacos/v1/cs/listener?ip=127.0.0.1", null));
            assertEquals(
                    md5, byIp.path("lisentersGroupkeyStatus").path("seen+G").asText(), byIp.toString());
            JsonNode otherNamespace = json(send("GET", "/nacos/v1/cs/listener?ip=127.0.0.1&tenant=other", null));
            assertEquals(0, otherNamespace.path("listeners").size(), "only the namespace asked: " + otherNamespace);
        } finally {
            ws.abort();
        }
        send("POST", "/nacos/v1/cs/configs", "dataId=seen&group=G&content=v2");
        assertEquals(200, poll.get().statusCode(), "the poll is answered by the change");
    }

    @Test
    void instancesSayWhatKeepsThemAliveAndSubscribersAreListedByProtocol() throws Exception {
        send("POST", "/nacos/v1/ns/instance", "serviceName=kept&ip=10.0.0.1&port=80");
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"kept\",\"type\":\"registerInstance\","
                            + "\"instance\":{\"ip\":\"10.0.0.2\",\"port\":80}}");
            c.request("SubscribeServiceRequest", "{\"serviceName\":\"kept\",\"subscribe\":true}");
            send("GET", "/nacos/v1/ns/instance/list?serviceName=kept&udpPort=4321", null);

            JsonNode list = json(send("GET", "/nacos/v1/ns/catalog/instances?serviceName=kept", null));
            assertEquals(2, list.path("count").asInt(), list.toString());
            JsonNode beat = row(list.path("list"), "ip", "10.0.0.1");
            assertEquals("http-beat", beat.path("heldBy").path("kind").asText(), beat.toString());
            JsonNode held = row(list.path("list"), "ip", "10.0.0.2");
            assertEquals("grpc", held.path("heldBy").path("kind").asText(), held.toString());
            assertEquals("127.0.0.1:" + port, held.path("heldBy").path("node").asText(), held.toString());
            JsonNode connection = held.path("heldBy").path("connections").get(0);
            assertNotNull(connection, held.toString());
            assertEquals("raw-test", connection.path("agent").asText(), held.toString());

            JsonNode subs = json(send("GET", "/nacos/v1/ns/service/subscribers?serviceName=kept", null));
            assertEquals(2, subs.path("count").asInt(), subs.toString());
            assertEquals(
                    "raw-test",
                    row(subs.path("subscribers"), "protocol", "grpc")
                            .path("agent")
                            .asText());
            assertEquals(
                    "127.0.0.1:4321",
                    row(subs.path("subscribers"), "protocol", "udp-push")
                            .path("addrStr")
                            .asText());
            JsonNode paged = json(send("GET", "/nacos/v1/ns/service/subscribers?serviceName=kept&pageSize=1", null));
            assertEquals(1, paged.path("subscribers").size(), paged.toString());
            assertEquals(2, paged.path("count").asInt(), paged.toString());
        }
        send("POST", "/nacos/v1/ns/instance", "serviceName=stored&ip=10.0.0.3&port=80&ephemeral=false");
        JsonNode stored = json(send("GET", "/nacos/v1/ns/catalog/instances?serviceName=stored", null));
        assertEquals(
                "persistent",
                stored.path("list").get(0).path("heldBy").path("kind").asText(),
                stored.toString());
    }

    @Test
    void namespacesCountTheirConfigsAndServices() throws Exception {
        send("POST", "/nacos/v1/console/namespaces", "customNamespaceId=counted&namespaceName=counted");
        send("POST", "/nacos/v1/cs/configs", "dataId=a&group=G&content=x&tenant=counted");
        send("POST", "/nacos/v1/cs/configs", "dataId=b&group=G&content=x&tenant=counted");
        send("POST", "/nacos/v1/ns/service", "serviceName=defined&namespaceId=counted");
        send("POST", "/nacos/v1/ns/instance", "serviceName=beating&namespaceId=counted&ip=10.0.0.9&port=9");
        JsonNode list = json(send("GET", "/nacos/v1/console/namespaces", null));
        JsonNode counted = row(list.path("data"), "namespace", "counted");
        assertNotNull(counted, list.toString());
        assertEquals(2, counted.path("configCount").asInt(), counted.toString());
        assertEquals(2, counted.path("serviceCount").asInt(), "a defined and an ephemeral-only service: " + counted);
        JsonNode detail = json(send("GET", "/nacos/v1/console/namespaces?show=all&namespaceId=counted", null));
        assertEquals(2, detail.path("configCount").asInt(), detail.toString());
        assertEquals(2, detail.path("serviceCount").asInt(), detail.toString());
    }

    @Test
    void theClusterListsEachMembersOwnStatus() throws Exception {
        JsonNode c = json(send("GET", "/lodestar/v1/cluster", null));
        JsonNode self = c.path("members").get(0);
        assertEquals("UP", self.path("status").asText(), c.toString());
        assertTrue(self.path("reachable").asBoolean(), c.toString());
        assertEquals("LEADER", self.path("role").asText(), c.toString());
        assertTrue(self.path("term").asLong() >= 1, c.toString());
        assertTrue(self.path("appliedIndex").asLong() >= 1, c.toString());
        assertTrue(
                self.path("commitIndex").asLong() >= self.path("appliedIndex").asLong() - 0, c.toString());
        assertTrue(self.path("distro").path("loaded").asBoolean(), c.toString());
    }

    private static JsonNode row(JsonNode rows, String field, String value) {
        for (JsonNode r : rows) {
            if (value.equals(r.path(field).asText())) {
                return r;
            }
        }
        return null;
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        return Json.MAPPER.readTree(r.body());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private HttpResponse<String> send(String method, String path, String form) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10));
        if (form != null) {
            b.header("Content-Type", "application/x-www-form-urlencoded")
                    .method(method, HttpRequest.BodyPublishers.ofString(form));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The lowercase hex MD5 of UTF-8 text, as configs carry it. */
    private static final class ContentMd5Hex {
        static String of(String s) throws Exception {
            byte[] d = java.security.MessageDigest.getInstance("MD5")
                    .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(d);
        }
    }
}
