package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.grpc.RawGrpcClient;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write past a quota, over each protocol: answered with the protocol's refusal naming the quota
 * (HTTP 429, gRPC code 503), counted in {@code lodestar_limit_refusals_total}, nothing written, and
 * the node goes on serving every other write.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuotasTest {
    private static final int CONFIGS = 2;
    private static final int INSTANCES = 2;

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
        Limits limits = Limits.defaults()
                .with(Limit.QUOTA_CONFIGS_PER_NAMESPACE, CONFIGS)
                .with(Limit.QUOTA_INSTANCES_PER_SERVICE, INSTANCES)
                .with(Limit.QUOTA_EPHEMERAL_INSTANCES_PER_SERVICE, 1);
        server = LodestarServer.start(TestSettings.standalone(dir, port, grpcPort, false, limits));
        Await.until(
                "ready",
                () -> send("GET", "/nacos/v1/console/health/readiness", null).statusCode() == 200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private HttpResponse<String> send(String method, String path, String form) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        if (form != null) {
            b.header("Content-Type", "application/x-www-form-urlencoded")
                    .method(method, HttpRequest.BodyPublishers.ofString(form));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> publish(String tenant, String dataId) throws Exception {
        return send(
                "POST",
                "/nacos/v1/cs/configs",
                "tenant=" + tenant + "&group=G&dataId=" + dataId + "&content="
                        + URLEncoder.encode("v " + dataId, StandardCharsets.UTF_8));
    }

    private HttpResponse<String> read(String tenant, String dataId) throws Exception {
        return send("GET", "/nacos/v1/cs/configs?tenant=" + tenant + "&group=G&dataId=" + dataId, null);
    }

    private long refusals(String limit) throws Exception {
        String body = send("GET", "/metrics", null).body();
        Matcher m = Pattern.compile(
                        "lodestar_limit_refusals_total\\{limit=\"" + Pattern.quote(limit) + "\"[^}]*} (\\S+)")
                .matcher(body);
        assertTrue(m.find(), "the metric of " + limit + " in: " + body);
        return (long) Double.parseDouble(m.group(1));
    }

    @Test
    void aNewConfigPastTheQuotaIsAnsweredWithTheRefusalOfEachProtocol() throws Exception {
        String limit = Limit.QUOTA_CONFIGS_PER_NAMESPACE.key();
        for (int i = 0; i < CONFIGS; i++) {
            assertEquals(200, publish("dev", "c" + i).statusCode());
        }
        long before = refusals(limit);

        HttpResponse<String> refused = publish("dev", "one-more");
        assertEquals(429, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains(limit + " (" + CONFIGS + ")"), refused.body());
        assertTrue(refused.body().contains("namespace 'dev'"), refused.body());
        assertEquals(404, read("dev", "one-more").statusCode(), "nothing written");

        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            RawGrpcClient.Message answer = c.request(
                    "ConfigPublishRequest",
                    "{\"dataId\":\"over-grpc\",\"group\":\"G\",\"tenant\":\"dev\",\"content\":\"v\"}");
            assertEquals(503, answer.body().path("errorCode").asInt(), answer.toString());
            assertTrue(answer.body().path("message").asText().contains(limit), answer.toString());

            RawGrpcClient.Message replaced = c.request(
                    "ConfigPublishRequest",
                    "{\"dataId\":\"c0\",\"group\":\"G\",\"tenant\":\"dev\",\"content\":\"replaced\"}");
            assertEquals(0, replaced.body().path("errorCode").asInt(0), "replacing at the quota: " + replaced);
        }
        assertEquals(404, read("dev", "over-grpc").statusCode());
        assertEquals(before + 2, refusals(limit));

        assertEquals(200, publish("other", "c0").statusCode(), "another namespace has its own room");
        assertEquals(
                200,
                send("DELETE", "/nacos/v1/cs/configs?tenant=dev&group=G&dataId=c1", null)
                        .statusCode());
        assertEquals(200, publish("dev", "one-more").statusCode(), "a delete frees room");
    }

    private HttpResponse<String> registerPersistent(String service, String ip) throws Exception {
        return send(
                "POST", "/nacos/v1/ns/instance", "serviceName=" + service + "&ip=" + ip + "&port=80&ephemeral=false");
    }

    private String hosts(String service) throws Exception {
        return send("GET", "/nacos/v1/ns/instance/list?serviceName=" + service, null)
                .body();
    }

    private static RawGrpcClient.Message registerOver(RawGrpcClient c, String service, String ip) {
        return c.request(
                "InstanceRequest",
                "{\"serviceName\":\"" + service + "\",\"type\":\"registerInstance\"," + "\"instance\":{\"ip\":\"" + ip
                        + "\",\"port\":80}}");
    }

    @Test
    void aPersistentInstancePastTheQuotaIsAnswered429NamingIt() throws Exception {
        String limit = Limit.QUOTA_INSTANCES_PER_SERVICE.key();
        for (int i = 1; i <= INSTANCES; i++) {
            assertEquals(200, registerPersistent("orders", "10.0.0." + i).statusCode());
        }
        long before = refusals(limit);

        HttpResponse<String> refused = registerPersistent("orders", "10.0.0.9");
        assertEquals(429, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains(limit + " (" + INSTANCES + ")"), refused.body());
        assertTrue(!hosts("orders").contains("10.0.0.9"), "nothing written");
        assertEquals(before + 1, refusals(limit));

        assertEquals(200, registerPersistent("orders", "10.0.0.1").statusCode(), "the same address again");
        assertEquals(200, registerPersistent("stock", "10.0.0.9").statusCode(), "another service has its own room");
    }

    @Test
    void anEphemeralInstancePastTheQuotaIsRefusedOverGrpcAndABatchWhole() throws Exception {
        String limit = Limit.QUOTA_EPHEMERAL_INSTANCES_PER_SERVICE.key();
        try (RawGrpcClient first = new RawGrpcClient(grpcPort).setUp();
                RawGrpcClient second = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(first.awaitPushed("SetupAckRequest", 5));
            assertNotNull(second.awaitPushed("SetupAckRequest", 5));
            RawGrpcClient.Message ok = registerOver(first, "web", "10.0.1.1");
            assertEquals(0, ok.body().path("errorCode").asInt(0), ok.toString());

            RawGrpcClient.Message refused = registerOver(second, "web", "10.0.1.2");
            assertEquals(503, refused.body().path("errorCode").asInt(), refused.toString());
            assertTrue(refused.body().path("message").asText().contains(limit), refused.toString());

            RawGrpcClient.Message batch = second.request(
                    "BatchInstanceRequest",
                    "{\"serviceName\":\"batch\",\"type\":\"batchRegisterInstance\",\"instances\":["
                            + "{\"ip\":\"10.0.2.1\",\"port\":80},{\"ip\":\"10.0.2.2\",\"port\":80}]}");
            assertEquals(503, batch.body().path("errorCode").asInt(), batch.toString());
            assertTrue(batch.body().path("message").asText().contains("2 more"), batch.toString());

            RawGrpcClient.Message other = registerOver(second, "other", "10.0.1.2");
            assertEquals(0, other.body().path("errorCode").asInt(0), "another service: " + other);
            assertTrue(hosts("web").contains("10.0.1.1") && !hosts("web").contains("10.0.1.2"), hosts("web"));
            assertTrue(!hosts("batch").contains("10.0.2."), "no instance of the refused batch: " + hosts("batch"));
        }
    }
}
