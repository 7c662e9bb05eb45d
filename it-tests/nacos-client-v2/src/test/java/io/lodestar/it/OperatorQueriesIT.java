package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alibaba.nacos.api.config.ConfigService;
import com.alibaba.nacos.api.config.listener.AbstractListener;
import com.alibaba.nacos.api.naming.NamingService;
import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The operator's queries on a 3-node cluster, with the official clients: a publish's delivery
 * report follows a nacos-client 2.x listener over gRPC on one node, a nacos-client 1.4 long-poll on
 * another and a push-channel subscriber on the third, each from notice to pull, asked of any node;
 * the service catalog and Prometheus's targets list instances held on other nodes.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class OperatorQueriesIT {
    private static final Duration SOON = Duration.ofSeconds(30);

    static {
        NacosClientHome.init(); // before any nacos-client class loads
    }

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @RegisterExtension
    final OfficialClients clients = new OfficialClients();

    private Nacos1Client http1;
    private WebSocket ws;

    @AfterEach
    void close() {
        if (http1 != null) {
            http1.close();
        }
        if (ws != null) {
            ws.abort();
        }
    }

    @Test
    void aPublishesDeliveryReportFollowsAGrpcALongPollAndAPushListenerOnThreeNodes() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess a = nodes.get(0);
        ServerProcess b = nodes.get(1);
        ServerProcess c = nodes.get(2);
        assertEquals(200, StandaloneServerIT.publish(a, "delivered", "v1").status());
        Await.until(
                SOON,
                "the config on C",
                () -> "v1".equals(StandaloneServerIT.read(c, "delivered").body()));

        BlockingQueue<String> grpcHeard = new LinkedBlockingQueue<>();
        ConfigService grpc = clients.config(a.httpAddress(), null);
        grpc.addListener("delivered", "DEFAULT_GROUP", new AbstractListener() {
            @Override
            public void receiveConfigInfo(String content) {
                grpcHeard.add(content);
            }
        });
        BlockingQueue<String> pollHeard = new LinkedBlockingQueue<>();
        http1 = new Nacos1Client(b.httpAddress());
        http1.addListener("delivered", "DEFAULT_GROUP", pollHeard::add);
        BlockingQueue<String> pushed = new LinkedBlockingQueue<>();
        ws = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .buildAsync(URI.create("ws://" + c.httpAddress() + "/lodestar/v1/push"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        pushed.add(data.toString());
                        w.request(1);
                        return null;
                    }
                })
                .get(10, TimeUnit.SECONDS);
        ws.sendText(
                        "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"delivered\",\"group\":\"DEFAULT_GROUP\",\"md5\":\""
                                + md5("v1") + "\"}]}",
                        true)
                .get(10, TimeUnit.SECONDS);
        JsonNode[] report = {null};
        Await.until(SOON, "three listeners, one on each node, seen from B", () -> {
            report[0] = Http.json(b.httpAddress(), "/lodestar/v1/cs/delivery?dataId=delivered&group=DEFAULT_GROUP");
            return report[0].path("listeners").size() == 3;
        });

        assertEquals(200, StandaloneServerIT.publish(b, "delivered", "v2").status());
        // each client may first hand its listener the content it found when it started listening
        awaitHeard(grpcHeard, "v2", "the gRPC listener hears it");
        awaitHeard(pollHeard, "v2", "the 1.4 listener hears it");
        Await.until(SOON, "the push message", () -> pushed.stream().anyMatch(m -> m.contains("\"changed\"")));
        // what a push-channel client does on a notice: pull the content from its node
        assertEquals("v2", StandaloneServerIT.read(c, "delivered").body());

        Await.until(
                SOON,
                "every listener has pulled v2, as A reports it",
                () -> {
                    report[0] =
                            Http.json(a.httpAddress(), "/lodestar/v1/cs/delivery?dataId=delivered&group=DEFAULT_GROUP");
                    return report[0].path("summary").path("pulled").asInt() == 3;
                },
                () -> report[0]);
        JsonNode r = report[0];
        assertEquals(md5("v2"), r.path("md5").asText(), r.toString());
        JsonNode overGrpc = row(r.path("listeners"), "protocol", "grpc");
        assertEquals(a.httpAddress(), overGrpc.path("node").asText(), overGrpc.toString());
        assertTrue(overGrpc.path("notified").asBoolean(), overGrpc.toString());
        assertTrue(overGrpc.path("notice").path("acked").asBoolean(), "the 2.x client answered: " + overGrpc);
        assertEquals("grpc", overGrpc.path("pulledVia").asText(), overGrpc.toString());
        JsonNode polled = row(r.path("listeners"), "protocol", "http-long-poll");
        assertEquals(b.httpAddress(), polled.path("node").asText(), polled.toString());
        assertTrue(polled.path("notified").asBoolean(), polled.toString());
        JsonNode push = row(r.path("listeners"), "protocol", "push-channel");
        assertEquals(c.httpAddress(), push.path("node").asText(), push.toString());
        assertTrue(push.path("notified").asBoolean(), push.toString());
        assertEquals("http", push.path("pulledVia").asText(), push.toString());
        assertEquals(3, r.path("nodes").size(), r.toString());

        // the same report for the first publish: each has moved past it
        JsonNode history =
                Http.json(c.httpAddress(), "/nacos/v1/cs/history?search=accurate&dataId=delivered&group=DEFAULT_GROUP");
        long first = history.path("pageItems").get(1).path("id").asLong();
        JsonNode old = Http.json(
                c.httpAddress(), "/lodestar/v1/cs/delivery?dataId=delivered&group=DEFAULT_GROUP&nid=" + first);
        assertEquals(md5("v1"), old.path("md5").asText(), old.toString());
        assertEquals(3, old.path("summary").path("superseded").asInt(), old.toString());
    }

    @Test
    void theCatalogAndPrometheusListInstancesHeldOnOtherNodes() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess a = nodes.get(0);
        ServerProcess c = nodes.get(2);
        NamingService naming = clients.naming(a.httpAddress());
        naming.registerInstance("scraped", "127.0.0.1", 9100); // ephemeral, held by A's gRPC connection
        // a 2.x client holds one instance per service: the second from another client, on B
        clients.naming(nodes.get(1).httpAddress()).registerInstance("scraped", "127.0.0.3", 9100);
        // a service holds ephemeral or persistent instances, not both (as in Nacos 2); no probe
        // decides these ones' health (nothing listens on their port)
        String b = nodes.get(1).httpAddress();
        assertEquals(
                200,
                Http.postForm(b, "/nacos/v1/ns/service", Http.params("serviceName", "stored"))
                        .status());
        Http.Response none = Http.send(
                b,
                "PUT",
                "/nacos/v1/ns/cluster",
                Http.params("serviceName", "stored", "clusterName", "DEFAULT", "healthChecker", "{\"type\":\"NONE\"}"));
        assertEquals(200, none.status(), none.body());
        for (String ip : new String[] {"127.0.0.2", "127.0.0.4"}) {
            Http.Response r = Http.postForm(
                    nodes.get(1).httpAddress(),
                    "/nacos/v1/ns/instance",
                    Http.params(
                            "serviceName",
                            "stored",
                            "ip",
                            ip,
                            "port",
                            "9100",
                            "ephemeral",
                            "false",
                            "enabled",
                            String.valueOf(ip.endsWith("4"))));
            assertEquals(200, r.status(), r.body());
        }

        JsonNode[] catalog = {null};
        Await.until(
                SOON,
                "every instance counted by C",
                () -> {
                    catalog[0] = Http.json(c.httpAddress(), "/nacos/v1/ns/catalog/services?pageNo=1&pageSize=10");
                    JsonNode s = row(catalog[0].path("serviceList"), "name", "scraped");
                    JsonNode stored = row(catalog[0].path("serviceList"), "name", "stored");
                    return s != null
                            && s.path("ipCount").asInt() == 2
                            && stored != null
                            && stored.path("ipCount").asInt() == 2;
                },
                () -> catalog[0]);
        JsonNode s = row(catalog[0].path("serviceList"), "name", "scraped");
        assertEquals("DEFAULT_GROUP", s.path("groupName").asText(), s.toString());
        assertEquals(1, s.path("clusterCount").asInt(), s.toString());
        JsonNode detail = Http.json(c.httpAddress(), "/nacos/v1/ns/catalog/service?serviceName=scraped");
        assertEquals("DEFAULT", detail.path("clusters").get(0).path("name").asText(), detail.toString());

        JsonNode targets = Http.json(c.httpAddress(), "/nacos/prometheus/namespaceId/public/service/scraped");
        assertEquals(2, targets.size(), "both gRPC-held instances, seen from C: " + targets);
        assertEquals("127.0.0.1:9100", targets.get(0).path("targets").get(0).asText(), targets.toString());
        assertEquals(
                "DEFAULT",
                targets.get(0).path("labels").path("__meta_clusterName").asText());
        JsonNode stored = Http.json(c.httpAddress(), "/nacos/prometheus/namespaceId/public/service/stored");
        assertEquals(1, stored.size(), "the disabled instance is no target: " + stored);
        assertEquals("127.0.0.4:9100", stored.get(0).path("targets").get(0).asText(), stored.toString());
        JsonNode all = Http.json(nodes.get(1).httpAddress(), "/nacos/prometheus");
        assertTrue(all.toString().contains("127.0.0.1:9100"), all.toString());
    }

    private static void awaitHeard(BlockingQueue<String> heard, String content, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + SOON.toNanos();
        for (long left = SOON.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            if (content.equals(heard.poll(left, TimeUnit.NANOSECONDS))) {
                return;
            }
        }
        throw new AssertionError(what + ": not within " + SOON);
    }

    private static JsonNode row(JsonNode rows, String field, String value) {
        for (JsonNode r : rows) {
            if (value != null && value.equals(r.path(field).asText())) {
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
