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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * The operator's queries on one node: the service catalog and Prometheus's targets in Nacos's
 * shapes, and a publish's delivery report following a long-poll, a gRPC listener and a push-channel
 * subscriber from notice to pull. A bad request is a 400 naming its field.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorQueriesTest {
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
        String md5 = "0123456789abcdef0123456789abcdef";
        return Stream.of(
                Arguments.of("/nacos/v1/ns/catalog/services?pageNo=0", "pageNo"),
                Arguments.of("/nacos/v1/ns/catalog/services?pageSize=1001", "pageSize"),
                Arguments.of("/nacos/v1/ns/catalog/services?pageSize=x", "pageSize"),
                Arguments.of("/nacos/v1/ns/catalog/services?hasIpCount=yes", "hasIpCount"),
                Arguments.of("/nacos/v1/ns/catalog/services?withInstances=1", "withInstances"),
                Arguments.of("/nacos/v1/ns/catalog/services?groupNameParam=a%2Fb", "groupNameParam"),
                Arguments.of("/nacos/v1/ns/catalog/services?serviceNameParam=.*%28a%2B%29%2B", "serviceNameParam"),
                Arguments.of("/nacos/v1/ns/catalog/services?namespaceId=a&tenant=b", "namespaceId"),
                Arguments.of("/nacos/v1/ns/catalog/service", "serviceName"),
                Arguments.of("/nacos/v1/ns/catalog/service?serviceName=A%40%40s&groupName=B", "groupName"),
                Arguments.of("/nacos/v1/ns/catalog/service?serviceName=a%2Fb", "serviceName"),
                Arguments.of("/nacos/prometheus/namespaceId/a%2Fb", "namespaceId"),
                Arguments.of("/nacos/prometheus/namespaceId/public/service/a%20b", "serviceName"),
                Arguments.of("/nacos/prometheus/namespaceId/public/service/%40x", "serviceName"),
                Arguments.of("/lodestar/v1/cs/delivery?group=G", "dataId"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=b%2Fc", "group"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=G&md5=xyz", "md5"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=G&md5=" + md5.toUpperCase(), "md5"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=G&nid=0", "nid"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=G&nid=abc", "nid"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=G&nid=1&md5=" + md5, "nid"),
                Arguments.of("/lodestar/v1/cs/delivery?dataId=a&group=G&tenant=x&namespaceId=y", "tenant"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void aBadRequestIsA400NamingItsField(String path, String field) throws Exception {
        HttpResponse<String> r = send("GET", path, null);
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains(field), () -> "names " + field + ": " + r.body());
    }

    @Test
    void theCatalogCountsEveryInstanceAndShowsTheClustersCheckers() throws Exception {
        send("POST", "/nacos/v1/console/namespaces", "customNamespaceId=cat&namespaceName=cat");
        String ns = "namespaceId=cat&";
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=orders&ip=10.1.0.1&port=80");
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=orders&ip=10.1.0.2&port=80&enabled=false");
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=orders&ip=10.1.0.3&port=80&clusterName=B");
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=PAY@@billing&ip=10.1.0.4&port=81&ephemeral=false");
        ok("POST", "/nacos/v1/ns/service", ns + "serviceName=empty&protectThreshold=0.5");
        ok(
                "PUT",
                "/nacos/v1/ns/cluster",
                ns + "serviceName=orders&clusterName=B&healthChecker="
                        + java.net.URLEncoder.encode(
                                "{\"type\":\"HTTP\",\"path\":\"/health\"}", java.nio.charset.StandardCharsets.UTF_8));

        JsonNode all = json(send("GET", "/nacos/v1/ns/catalog/services?namespaceId=cat&pageNo=1&pageSize=10", null));
        assertEquals(3, all.path("count").asInt(), all.toString());
        JsonNode orders = row(all.path("serviceList"), "name", "orders");
        assertEquals("DEFAULT_GROUP", orders.path("groupName").asText());
        assertEquals(2, orders.path("clusterCount").asInt(), orders.toString());
        assertEquals(3, orders.path("ipCount").asInt(), "a disabled instance counts: " + orders);
        assertEquals(3, orders.path("healthyInstanceCount").asInt(), orders.toString());
        assertEquals("false", orders.path("triggerFlag").asText(), orders.toString());
        assertEquals(
                List.of("name", "groupName", "clusterCount", "ipCount", "healthyInstanceCount", "triggerFlag"),
                fields(orders));
        assertEquals(
                "PAY",
                row(all.path("serviceList"), "name", "billing")
                        .path("groupName")
                        .asText());

        JsonNode withIps = json(send("GET", "/nacos/v1/ns/catalog/services?namespaceId=cat&hasIpCount=true", null));
        assertEquals(2, withIps.path("count").asInt(), "the empty service is left out: " + withIps);
        JsonNode byGroup = json(send("GET", "/nacos/v1/ns/catalog/services?namespaceId=cat&groupNameParam=PA", null));
        assertEquals(1, byGroup.path("count").asInt(), byGroup.toString());
        JsonNode byName = json(send("GET", "/nacos/v1/ns/catalog/services?namespaceId=cat&serviceNameParam=rde", null));
        assertEquals("orders", byName.path("serviceList").get(0).path("name").asText(), byName.toString());
        JsonNode page2 = json(send("GET", "/nacos/v1/ns/catalog/services?namespaceId=cat&pageNo=2&pageSize=2", null));
        assertEquals(1, page2.path("serviceList").size(), page2.toString());
        assertEquals(3, page2.path("count").asInt(), page2.toString());
        JsonNode detailed = json(send(
                "GET",
                "/nacos/v1/ns/catalog/services?namespaceId=cat&withInstances=true&serviceNameParam=orders",
                null));
        JsonNode clusterB = detailed.get(0).path("clusterMap").path("B");
        assertEquals("10.1.0.3", clusterB.path("hosts").get(0).path("ip").asText(), detailed.toString());
        assertEquals("HTTP", clusterB.path("healthChecker").path("type").asText(), detailed.toString());

        JsonNode detail = json(send("GET", "/nacos/v1/ns/catalog/service?namespaceId=cat&serviceName=orders", null));
        assertEquals("orders", detail.path("service").path("name").asText(), detail.toString());
        assertEquals(
                "none", detail.path("service").path("selector").path("type").asText());
        JsonNode b = row(detail.path("clusters"), "name", "B");
        assertEquals("HTTP", b.path("healthChecker").path("type").asText(), detail.toString());
        assertEquals("/health", b.path("healthChecker").path("path").asText(), detail.toString());
        assertEquals("DEFAULT_GROUP@@orders", b.path("serviceName").asText(), detail.toString());
        assertEquals(
                "TCP",
                row(detail.path("clusters"), "name", "DEFAULT")
                        .path("healthChecker")
                        .path("type")
                        .asText());
        HttpResponse<String> missing =
                send("GET", "/nacos/v1/ns/catalog/service?namespaceId=cat&serviceName=nope", null);
        assertEquals(404, missing.statusCode(), missing.body());
        assertTrue(missing.body().contains("DEFAULT_GROUP@@nope"), missing.body());
    }

    @Test
    void prometheusGetsTheHealthyEnabledInstancesWithTheirLabels() throws Exception {
        send("POST", "/nacos/v1/console/namespaces", "customNamespaceId=prom&namespaceName=prom");
        String ns = "namespaceId=prom&";
        ok(
                "POST",
                "/nacos/v1/ns/instance",
                ns + "serviceName=api&ip=10.2.0.1&port=9100&clusterName=C1&metadata="
                        + java.net.URLEncoder.encode(
                                "{\"metrics.path\":\"/m\",\"team-name\":\"x\"}",
                                java.nio.charset.StandardCharsets.UTF_8));
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=api&ip=10.2.0.2&port=9100&enabled=false");
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=G@@db&ip=10.2.0.3&port=9104&ephemeral=false");
        ok("POST", "/nacos/v1/ns/instance", ns + "serviceName=G@@db&ip=10.2.0.4&port=9104&ephemeral=false");
        ok(
                "PUT",
                "/nacos/v1/ns/cluster",
                ns + "serviceName=G@@db&clusterName=DEFAULT&healthChecker=%7B%22type%22%3A%22NONE%22%7D");
        ok(
                "PUT",
                "/nacos/v1/ns/health/instance",
                ns + "serviceName=G@@db&clusterName=DEFAULT&ip=10.2.0.4&port=9104&healthy=false");

        JsonNode targets = json(send("GET", "/nacos/prometheus/namespaceId/prom", null));
        assertEquals(2, targets.size(), "the disabled and the unhealthy instances are left out: " + targets);
        // sorted by namespace, group, service: DEFAULT_GROUP@@api, then G@@db
        JsonNode api = targets.get(0);
        assertEquals("10.2.0.1:9100", api.path("targets").get(0).asText(), targets.toString());
        assertEquals("C1", api.path("labels").path("__meta_clusterName").asText(), api.toString());
        assertEquals("/m", api.path("labels").path("metrics_path").asText(), api.toString());
        assertEquals("x", api.path("labels").path("team_name").asText(), api.toString());
        assertEquals("api", api.path("labels").path("__meta_serviceName").asText(), api.toString());
        assertEquals("10.2.0.3:9104", targets.get(1).path("targets").get(0).asText(), targets.toString());
        assertEquals("G", targets.get(1).path("labels").path("__meta_groupName").asText());

        JsonNode db = json(send("GET", "/nacos/prometheus/namespaceId/prom/service/db", null));
        assertEquals(1, db.size(), db.toString());
        JsonNode every = json(send("GET", "/nacos/prometheus", null));
        assertTrue(every.toString().contains("10.2.0.1:9100"), every.toString());
        assertEquals(
                "[]", send("GET", "/nacos/prometheus/namespaceId/unknown", null).body());
    }

    @Test
    void theDeliveryReportFollowsEachListenerFromNoticeToPull() throws Exception {
        ok("POST", "/nacos/v1/cs/configs", "dataId=d&group=G&content=v1");
        String v1 = md5("v1");
        String v2 = md5("v2");
        CompletableFuture<HttpResponse<String>> poll = longPoll("d", "G", v1);
        LinkedBlockingQueue<String> pushed = new LinkedBlockingQueue<>();
        WebSocket ws = http.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + port + "/lodestar/v1/push"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        pushed.add(data.toString());
                        w.request(1);
                        return null;
                    }
                })
                .get();
        ws.sendText(
                        "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"d\",\"group\":\"G\",\"md5\":\"" + v1 + "\"}]}",
                        true)
                .get();
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request(
                    "ConfigBatchListenRequest",
                    "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"d\",\"group\":\"G\",\"tenant\":\"\","
                            + "\"md5\":\"" + v1 + "\"}]}");
            Await.until("three listeners", () -> report("").path("listeners").size() == 3);
            JsonNode before = report("");
            assertEquals(3, before.path("summary").path("pulled").asInt(), "each holds v1 already: " + before);

            ok("POST", "/nacos/v1/cs/configs", "dataId=d&group=G&content=v2");
            assertEquals(200, poll.get(10, TimeUnit.SECONDS).statusCode(), "the poll is answered by the change");
            RawGrpcClient.Message notice = c.awaitPushed("ConfigChangeNotifyRequest", 5);
            assertNotNull(notice, "the gRPC listener is told");
            c.answer(notice, "ConfigChangeNotifyResponse");
            Await.until("the push message", () -> pushed.stream().anyMatch(m -> m.contains("\"changed\"")));

            JsonNode told = awaitReport(r -> {
                JsonNode g = row(r.path("listeners"), "protocol", "grpc");
                return g != null && g.path("notice").path("acked").asBoolean();
            });
            assertEquals(v2, told.path("md5").asText(), told.toString());
            JsonNode grpcRow = row(told.path("listeners"), "protocol", "grpc");
            assertEquals("notified", grpcRow.path("status").asText(), grpcRow.toString());
            assertTrue(grpcRow.path("notified").asBoolean(), grpcRow.toString());
            JsonNode wsRow = row(told.path("listeners"), "protocol", "push-channel");
            assertEquals("notified", wsRow.path("status").asText(), "told, no pull yet: " + wsRow);
            assertEquals("push-channel", wsRow.path("notice").path("via").asText(), wsRow.toString());

            c.request("ConfigQueryRequest", "{\"dataId\":\"d\",\"group\":\"G\",\"tenant\":\"\"}");
            assertEquals(
                    200,
                    send("GET", "/nacos/v1/cs/configs?dataId=d&group=G", null).statusCode());
            CompletableFuture<HttpResponse<String>> again = longPoll("d", "G", v2);
            JsonNode pulled = awaitReport(r -> r.path("summary").path("pulled").asInt() == 3);
            JsonNode g = row(pulled.path("listeners"), "protocol", "grpc");
            assertEquals("grpc", g.path("pulledVia").asText(), g.toString());
            assertEquals(
                    "http",
                    row(pulled.path("listeners"), "protocol", "push-channel")
                            .path("pulledVia")
                            .asText());
            JsonNode lp = row(pulled.path("listeners"), "protocol", "http-long-poll");
            assertEquals("listen", lp.path("pulledVia").asText(), lp.toString());
            assertTrue(lp.path("notified").asBoolean(), "the answered poll's notice outlives it: " + lp);
            assertEquals(1, pulled.path("nodes").size(), pulled.toString());

            // the first publish, by its history id: every listener has moved past it
            JsonNode history = json(send("GET", "/nacos/v1/cs/history?search=accurate&dataId=d&group=G", null));
            long first = history.path("pageItems").get(1).path("id").asLong();
            JsonNode old = report("&nid=" + first);
            assertEquals(v1, old.path("md5").asText(), old.toString());
            assertEquals(3, old.path("summary").path("superseded").asInt(), old.toString());
            JsonNode byNid =
                    report("&nid=" + history.path("pageItems").get(0).path("id").asLong());
            assertEquals(v2, byNid.path("md5").asText(), "an update's own content, not what it replaced: " + byNid);

            // a gray release for another address: these clients are served the stable config
            HttpResponse<String> beta = http.send(
                    HttpRequest.newBuilder(uri("/nacos/v1/cs/configs"))
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .header("betaIps", "10.9.9.9")
                            .POST(HttpRequest.BodyPublishers.ofString("dataId=d&group=G&content=v3"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, beta.statusCode(), beta.body());
            JsonNode gray = report("&md5=" + md5("v3"));
            assertEquals(3, gray.path("summary").path("excluded").asInt(), gray.toString());
            assertTrue(
                    row(gray.path("listeners"), "protocol", "grpc")
                                    .path("reason")
                                    .asText()
                                    .contains("10.9.9.9")
                            || row(gray.path("listeners"), "protocol", "grpc")
                                    .path("reason")
                                    .asText()
                                    .contains("beta"),
                    gray.toString());
            ok("DELETE", "/nacos/v1/cs/configs?beta=true&dataId=d&group=G", null);
            ok("POST", "/nacos/v1/cs/configs", "dataId=d&group=G&content=v4");
            again.get(10, TimeUnit.SECONDS);
        } finally {
            ws.abort();
        }
        assertEquals(
                404,
                send("GET", "/lodestar/v1/cs/delivery?dataId=none&group=G", null)
                        .statusCode());
        assertEquals(
                404,
                send("GET", "/lodestar/v1/cs/delivery?dataId=d&group=G&nid=999999999", null)
                        .statusCode());
    }

    private interface Check {
        boolean test(JsonNode report) throws Exception;
    }

    private JsonNode awaitReport(Check check) throws Exception {
        JsonNode[] last = {null};
        Await.until("the report", () -> {
            last[0] = report("");
            return check.test(last[0]);
        });
        return last[0];
    }

    private JsonNode report(String extra) throws Exception {
        return json(send("GET", "/lodestar/v1/cs/delivery?dataId=d&group=G" + extra, null));
    }

    private CompletableFuture<HttpResponse<String>> longPoll(String dataId, String group, String md5) {
        return http.sendAsync(
                HttpRequest.newBuilder(uri("/nacos/v1/cs/configs/listener"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Long-Pulling-Timeout", "30000")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "Listening-Configs=" + dataId + "%02" + group + "%02" + md5 + "%01"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> fields(JsonNode o) {
        List<String> out = new java.util.ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static JsonNode row(JsonNode rows, String field, String value) {
        for (JsonNode r : rows) {
            if (value.equals(r.path(field).asText())) {
                return r;
            }
        }
        return null;
    }

    private void ok(String method, String path, String form) throws Exception {
        HttpResponse<String> r = send(method, path, form);
        assertEquals(200, r.statusCode(), method + " " + path + " " + form + ": " + r.body());
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

    private static String md5(String s) throws Exception {
        byte[] d = java.security.MessageDigest.getInstance("MD5")
                .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(d);
    }
}
