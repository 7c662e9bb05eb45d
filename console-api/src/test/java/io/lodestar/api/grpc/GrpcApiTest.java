package io.lodestar.api.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.config.ContentMd5;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The gRPC API as nacos-client 2.x meets it, driven by a raw client that can also send what no
 * well-behaved client sends: the connection's life cycle, and a table of bad requests, each
 * answered with Nacos's error response naming the problem, none writing anything, none disturbing
 * another client's connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcApiTest {
    @TempDir
    static Path dir;

    LodestarServer server;
    int grpcPort;
    int httpPort;
    RawGrpcClient bystander;

    @BeforeAll
    void start() {
        httpPort = FreePorts.next();
        grpcPort = FreePorts.next();
        server = LodestarServer.start(TestSettings.standalone(dir, httpPort, grpcPort));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @BeforeEach
    void connectBystander() throws Exception {
        bystander = new RawGrpcClient(grpcPort).setUp();
        assertNotNull(bystander.awaitPushed("SetupAckRequest", 5));
    }

    @Test
    void aSetupWithLabelsPastTheLimitIsRefusedNamingIt() throws Exception {
        String big = "x".repeat(20 << 10); // past grpc.setup-label-bytes' default, 16 KiB
        try (RawGrpcClient c = new RawGrpcClient(grpcPort)) {
            c.setUp("{\"clientVersion\":\"raw-test\",\"labels\":{\"big\":\"" + big + "\"},\"abilityTable\":{}}");
            String end = c.streamEnd.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            assertNotNull(end, "the stream ended");
            assertTrue(end.contains("RESOURCE_EXHAUSTED") && end.contains("grpc.setup-label-bytes"), end);
            assertNull(c.awaitPushed("SetupAckRequest", 1), "not set up");
        }
        try (RawGrpcClient c = new RawGrpcClient(grpcPort)) {
            c.setUp("{\"clientVersion\":\"raw-test\",\"labels\":{\"small\":\"" + "x".repeat(10 << 10)
                    + "\"},\"abilityTable\":{}}");
            assertNotNull(c.awaitPushed("SetupAckRequest", 5), "a setup within the limit is set up");
        }
    }

    @AfterEach
    void bystanderIsUndisturbed() throws Exception {
        assertNull(bystander.streamEnd.peek(), "another client's stream stays open");
        assertEquals(
                "HealthCheckResponse",
                bystander.request("HealthCheckRequest", "{}").type());
        bystander.close();
    }

    @Test
    void theServerCheckNamesTheConnectionByItsSocketAndOffersAbilityNegotiation() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort)) {
            RawGrpcClient.Message check = c.request("ServerCheckRequest", "{\"module\":\"internal\"}");
            assertEquals("ServerCheckResponse", check.type());
            assertEquals(200, check.body().path("resultCode").asInt());
            assertTrue(
                    check.body().path("connectionId").asText().matches("\\d+_127\\.0\\.0\\.1_\\d+"),
                    check.body().toString());
            assertTrue(check.body().path("supportAbilityNegotiation").asBoolean());
        }
    }

    @Test
    void aConnectionTakesRequestsOnlyOnceItsStreamSetItUp() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort)) {
            RawGrpcClient.Message early = c.request("HealthCheckRequest", "{}");
            assertEquals("ErrorResponse", early.type());
            assertEquals(
                    301, early.body().path("errorCode").asInt(), early.body().toString());

            c.setUp();
            RawGrpcClient.Message ack = c.awaitPushed("SetupAckRequest", 5);
            assertNotNull(ack, "abilities are answered when the client negotiates them");
            assertTrue(ack.body().path("abilityTable").isObject(), ack.body().toString());
            assertEquals(
                    "HealthCheckResponse", c.request("HealthCheckRequest", "{}").type());
        }
    }

    @Test
    void aClientThatDoesNotNegotiateAbilitiesIsSetUpWithoutAnAck() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort)) {
            c.openStream()
                    .onNext(RawGrpcClient.payload(
                            "ConnectionSetupRequest",
                            "{\"clientVersion\":\"Nacos-Java-Client:v2.1.0\",\"labels\":{},\"module\":\"internal\"}",
                            java.util.Map.of()));
            // such a client waits 100 ms and then sends its requests
            Await.until(
                    Duration.ofSeconds(5),
                    "the connection is set up",
                    () -> "HealthCheckResponse"
                            .equals(c.request("HealthCheckRequest", "{}").type()));
            assertNull(c.awaitPushed("SetupAckRequest", 1), "no ability table is pushed to a client that sent none");
        }
    }

    @Test
    void aListeningConnectionIsToldOfAChangeAndNotAfterItStopsListening() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            RawGrpcClient.Message listened = c.request(
                    "ConfigBatchListenRequest",
                    "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"told\",\"group\":\"G\",\"tenant\":\"\","
                            + "\"md5\":\"\"}]}");
            assertEquals("ConfigChangeBatchListenResponse", listened.type());
            assertEquals(0, listened.body().path("changedConfigs").size(), "absent equals an empty md5");

            bystander.request(
                    "ConfigPublishRequest", "{\"dataId\":\"told\",\"group\":\"G\",\"tenant\":\"\",\"content\":\"v1\"}");
            RawGrpcClient.Message notice = c.awaitPushed("ConfigChangeNotifyRequest", 10);
            assertNotNull(notice, "the change is pushed");
            assertEquals("told", notice.body().path("dataId").asText());
            assertEquals("G", notice.body().path("group").asText());
            c.answer(notice, "ConfigChangeNotifyResponse");

            RawGrpcClient.Message stale = c.request(
                    "ConfigBatchListenRequest",
                    "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"told\",\"group\":\"G\",\"tenant\":\"\","
                            + "\"md5\":\"\"}]}");
            assertEquals(1, stale.body().path("changedConfigs").size(), "a stale md5 is answered at once");

            c.request(
                    "ConfigBatchListenRequest",
                    "{\"listen\":false,\"configListenContexts\":[{\"dataId\":\"told\",\"group\":\"G\",\"tenant\":\"\"}]}");
            bystander.request(
                    "ConfigPublishRequest", "{\"dataId\":\"told\",\"group\":\"G\",\"tenant\":\"\",\"content\":\"v2\"}");
            assertNull(c.awaitPushed("ConfigChangeNotifyRequest", 2), "nothing once it stopped listening");
        }
    }

    @Test
    void aGrayReleaseIsServedToItsListedAddressAndPushedToItsListeners() throws Exception {
        bystander.request("ConfigPublishRequest", "{\"dataId\":\"gray\",\"group\":\"G\",\"content\":\"stable\"}");
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request(
                    "ConfigBatchListenRequest",
                    "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"gray\",\"group\":\"G\"," + "\"md5\":\""
                            + ContentMd5.of("stable") + "\"}]}");
            RawGrpcClient.Message beta = bystander.request(
                    "ConfigPublishRequest",
                    "{\"dataId\":\"gray\",\"group\":\"G\",\"content\":\"beta\","
                            + "\"additionMap\":{\"betaIps\":\"127.0.0.1\"}}");
            assertEquals(
                    200, beta.body().path("resultCode").asInt(), beta.body().toString());
            RawGrpcClient.Message notice = c.awaitPushed("ConfigChangeNotifyRequest", 10);
            assertNotNull(notice, "a gray release is pushed to the key's listeners");
            RawGrpcClient.Message read = c.request("ConfigQueryRequest", "{\"dataId\":\"gray\",\"group\":\"G\"}");
            assertEquals("beta", read.body().path("content").asText(), "served to the listed address");
            assertTrue(read.body().path("beta").asBoolean(), read.body().toString());
        }
    }

    @Test
    void aSubscriberIsPushedEachChangeAndAnUnansweredPushIsSentAgain() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            RawGrpcClient.Message sub =
                    c.request("SubscribeServiceRequest", "{\"serviceName\":\"pushed\",\"subscribe\":true}");
            assertEquals("SubscribeServiceResponse", sub.type(), sub.body().toString());
            assertEquals("pushed", sub.body().path("serviceInfo").path("name").asText());

            RawGrpcClient.Message registered = bystander.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"pushed\",\"type\":\"registerInstance\","
                            + "\"instance\":{\"ip\":\"127.0.0.81\",\"port\":81}}");
            assertEquals(
                    "InstanceResponse", registered.type(), registered.body().toString());
            RawGrpcClient.Message push = c.awaitPushed("NotifySubscriberRequest", 10);
            assertNotNull(push, "the registration is pushed");
            assertEquals(
                    "127.0.0.81",
                    push.body()
                            .path("serviceInfo")
                            .path("hosts")
                            .path(0)
                            .path("ip")
                            .asText());
            // not answered: sent again after the ack timeout
            RawGrpcClient.Message again = c.awaitPushed("NotifySubscriberRequest", 10);
            assertNotNull(again, "an unanswered push is sent again");
            assertEquals(push.body().path("serviceInfo"), again.body().path("serviceInfo"));
            c.answer(again, "NotifySubscriberResponse");
            assertNull(c.awaitPushed("NotifySubscriberRequest", 7), "an answered push is not sent again");
        }
    }

    @Test
    void metricsCountRequestsByTypeAndOutcomeAndPushesByWhatBecameOfThem() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request("SubscribeServiceRequest", "{\"serviceName\":\"counted\",\"subscribe\":true}");
            c.request("NoSuchRequest", "{}");
            bystander.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"counted\",\"type\":\"registerInstance\","
                            + "\"instance\":{\"ip\":\"127.0.0.82\",\"port\":82}}");
            c.answer(c.awaitPushed("NotifySubscriberRequest", 10), "NotifySubscriberResponse");
            String metrics = httpGet("/metrics").body();
            for (String series : List.of(
                    "lodestar_grpc_requests_seconds_count{outcome=\"ok\",type=\"SubscribeServiceRequest\"}",
                    "lodestar_grpc_requests_seconds_count{outcome=\"302\",type=\"other\"}",
                    "lodestar_grpc_pushes_total{event=\"sent\",type=\"NotifySubscriberRequest\"}",
                    "lodestar_grpc_pushes_total{event=\"acked\",type=\"NotifySubscriberRequest\"}")) {
                assertTrue(metrics.contains(series), series + " in\n" + metrics);
            }
        }
    }

    @Test
    void aConnectionsInstancesGoWithIt() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"bound\",\"type\":\"registerInstance\","
                            + "\"instance\":{\"ip\":\"127.0.0.91\",\"port\":91}}");
            assertEquals(1, hosts("bound"));
        }
        Await.until(Duration.ofSeconds(5), "deregistered when its connection closed", () -> hosts("bound") == 0);
    }

    @Test
    void aConnectionsInstanceNeedsNoBeatsAndIsRegisteredAgainIfTheRegistryLosesIt() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            String instance = "{\"ip\":\"127.0.0.93\",\"port\":93,\"metadata\":{"
                    + "\"preserved.heart.beat.interval\":\"500\",\"preserved.heart.beat.timeout\":\"1000\","
                    + "\"preserved.ip.delete.timeout\":\"1000\"}}";
            c.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"leased\",\"type\":\"registerInstance\",\"instance\":" + instance + "}");
            Await.holdsFor(
                    Duration.ofSeconds(3),
                    "listed and healthy past its timeouts without a beat: the connection is its lease",
                    () -> healthyHosts("leased") == 1);
            // the registry loses it: the admin removes it behind the connection's back
            assertEquals(
                    200,
                    http("DELETE", "/lodestar/v1/ns/instance?serviceName=leased&ip=127.0.0.93&port=93")
                            .statusCode());
            assertEquals(0, hosts("leased"), "removed by the admin");
            Await.until(
                    Duration.ofSeconds(15),
                    "registered again for the connection that still holds it",
                    () -> healthyHosts("leased") == 1);
        }
    }

    @Test
    void aClientSentElsewhereThatDoesNotComeBackLosesItsInstance() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            c.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"sent-away\",\"type\":\"registerInstance\","
                            + "\"instance\":{\"ip\":\"127.0.0.94\",\"port\":94}}");
            String id = c.request("ServerCheckRequest", "{}")
                    .body()
                    .path("connectionId")
                    .asText();
            assertEquals(
                    200,
                    http("POST", "/nacos/v2/core/loader/reloadClient?connectionId=" + id)
                            .statusCode());
            assertNotNull(c.awaitPushed("ConnectResetRequest", 5), "the client is told to go elsewhere");
            Await.until(Duration.ofSeconds(10), "the connection closed", () -> !c.streamEnd.isEmpty());
            Await.holdsFor(
                    Duration.ofSeconds(3),
                    "kept a while for the client to register it elsewhere",
                    () -> hosts("sent-away") == 1);
            Await.until(Duration.ofSeconds(20), "let go of, as no connection holds it", () -> hosts("sent-away") == 0);
        }
    }

    @Test
    void reloadClientNamesAMissingOrUnknownConnection() throws Exception {
        var missing = http("POST", "/nacos/v2/core/loader/reloadClient");
        assertEquals(400, missing.statusCode());
        assertTrue(missing.body().contains("connectionId"), missing.body());
        var unknown = http("POST", "/nacos/v2/core/loader/reloadClient?connectionId=nobody");
        assertEquals(404, unknown.statusCode());
        assertTrue(unknown.body().contains("nobody"), unknown.body());
        var badRedirect = http("POST", "/nacos/v2/core/loader/reloadClient?connectionId=nobody&redirectAddress=x");
        assertEquals(400, badRedirect.statusCode());
        assertTrue(badRedirect.body().contains("redirectAddress"), badRedirect.body());
    }

    @Test
    void reloadsArePostOnlyAndRedirectOnlyToMembers() throws Exception {
        var overGet = http("GET", "/nacos/v2/core/loader/reloadCurrent?count=0");
        assertTrue(
                overGet.statusCode() == 404 || overGet.statusCode() == 405,
                overGet.statusCode() + " " + overGet.body());
        var elsewhere = http("POST", "/nacos/v2/core/loader/reloadCurrent?count=0&redirectAddress=127.0.0.66:8848");
        assertEquals(400, elsewhere.statusCode());
        assertTrue(elsewhere.body().contains("not the HTTP address of a member"), elsewhere.body());
    }

    private java.net.http.HttpResponse<String> httpGet(String pathAndQuery) throws Exception {
        return http("GET", pathAndQuery);
    }

    private java.net.http.HttpResponse<String> http(String method, String pathAndQuery) throws Exception {
        return java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create("http://127.0.0.1:" + httpPort + pathAndQuery))
                                .method(method, java.net.http.HttpRequest.BodyPublishers.noBody())
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aConnectionsInstanceIsItsOwnToRelease() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            String instance = "{\"ip\":\"127.0.0.95\",\"port\":95}";
            c.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"owned\",\"type\":\"registerInstance\",\"instance\":" + instance + "}");
            assertEquals(1, hosts("owned"));
            RawGrpcClient.Message other = bystander.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"owned\",\"type\":\"deregisterInstance\",\"instance\":" + instance + "}");
            assertEquals(0, other.body().path("errorCode").asInt(), other.toString());
            assertEquals(1, hosts("owned"), "another connection's deregistration releases nothing of this one's");
            var overHttp = http("DELETE", "/nacos/v1/ns/instance?serviceName=owned&ip=127.0.0.95&port=95");
            assertEquals(400, overHttp.statusCode(), overHttp.body());
            assertTrue(overHttp.body().contains("held by a gRPC client's connection"), overHttp.body());
            assertEquals(1, hosts("owned"), "the HTTP API cannot remove a connection's instance");
            c.request(
                    "InstanceRequest",
                    "{\"serviceName\":\"owned\",\"type\":\"deregisterInstance\",\"instance\":" + instance + "}");
            assertEquals(0, hosts("owned"), "its own connection releases it");
        }
    }

    private int healthyHosts(String service) {
        int n = 0;
        for (var host : bystander
                .request("ServiceQueryRequest", "{\"serviceName\":\"" + service + "\"}")
                .body()
                .path("serviceInfo")
                .path("hosts")) {
            n += host.path("healthy").asBoolean() ? 1 : 0;
        }
        return n;
    }

    private int hosts(String service) {
        return bystander
                .request("ServiceQueryRequest", "{\"serviceName\":\"" + service + "\"}")
                .body()
                .path("serviceInfo")
                .path("hosts")
                .size();
    }

    /** One bad request: what is sent, the response type and error code Nacos answers it with, and a word the message must hold. */
    record Bad(String why, String type, String json, String answerType, int errorCode, String names) {
        @Override
        public String toString() {
            return why;
        }
    }

    static List<Bad> badRequests() {
        String tooBig = "x".repeat((10 << 20) + 1);
        return List.of(
                new Bad("an unknown request type", "NoSuchRequest", "{}", "ErrorResponse", 302, "NoSuchRequest"),
                new Bad("a body that is not JSON", "ConfigQueryRequest", "{oops", "ErrorResponse", 502, "JSON"),
                new Bad("a JSON array body", "ConfigQueryRequest", "[1,2]", "ErrorResponse", 502, "object"),
                new Bad(
                        "a query without dataId",
                        "ConfigQueryRequest",
                        "{\"group\":\"G\"}",
                        "ConfigQueryResponse",
                        400,
                        "dataId"),
                new Bad(
                        "a query whose dataId is a number",
                        "ConfigQueryRequest",
                        "{\"dataId\":7,\"group\":\"G\"}",
                        "ConfigQueryResponse",
                        400,
                        "dataId"),
                new Bad(
                        "a publish with an illegal dataId",
                        "ConfigPublishRequest",
                        "{\"dataId\":\"bad id!\",\"group\":\"G\",\"content\":\"c\"}",
                        "ConfigPublishResponse",
                        400,
                        "dataId"),
                new Bad(
                        "a publish without content",
                        "ConfigPublishRequest",
                        "{\"dataId\":\"bad-no-content\",\"group\":\"G\"}",
                        "ConfigPublishResponse",
                        400,
                        "content"),
                new Bad(
                        "a publish over 10 MiB",
                        "ConfigPublishRequest",
                        "{\"dataId\":\"bad-too-big\",\"group\":\"G\",\"content\":\"" + tooBig + "\"}",
                        "ConfigPublishResponse",
                        400,
                        "content"),
                new Bad(
                        "a publish whose additionMap is a string",
                        "ConfigPublishRequest",
                        "{\"dataId\":\"bad-addition\",\"group\":\"G\",\"content\":\"c\",\"additionMap\":\"x\"}",
                        "ConfigPublishResponse",
                        400,
                        "additionMap"),
                new Bad(
                        "a tagged publish",
                        "ConfigPublishRequest",
                        "{\"dataId\":\"bad-tag\",\"group\":\"G\",\"content\":\"c\",\"additionMap\":{\"tag\":\"t\"}}",
                        "ConfigPublishResponse",
                        400,
                        "tag"),
                new Bad(
                        "a remove without dataId",
                        "ConfigRemoveRequest",
                        "{\"group\":\"G\"}",
                        "ConfigRemoveResponse",
                        400,
                        "dataId"),
                new Bad(
                        "a listen whose contexts are an object",
                        "ConfigBatchListenRequest",
                        "{\"listen\":true,\"configListenContexts\":{}}",
                        "ConfigChangeBatchListenResponse",
                        400,
                        "configListenContexts"),
                new Bad(
                        "a listen whose flag is a string",
                        "ConfigBatchListenRequest",
                        "{\"listen\":\"yes\",\"configListenContexts\":[]}",
                        "ConfigChangeBatchListenResponse",
                        400,
                        "listen"),
                new Bad(
                        "a registration without an instance",
                        "InstanceRequest",
                        "{\"serviceName\":\"bad-svc\",\"type\":\"registerInstance\"}",
                        "ErrorResponse",
                        400,
                        "instance"),
                new Bad(
                        "a registration without serviceName",
                        "InstanceRequest",
                        "{\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":80}}",
                        "ErrorResponse",
                        400,
                        "serviceName"),
                new Bad(
                        "an instance request of an unknown kind",
                        "InstanceRequest",
                        "{\"serviceName\":\"bad-svc\",\"type\":\"rename\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":80}}",
                        "ErrorResponse",
                        400,
                        "type"),
                new Bad(
                        "a registration whose port is text",
                        "InstanceRequest",
                        "{\"serviceName\":\"bad-svc\",\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":\"http\"}}",
                        "ErrorResponse",
                        400,
                        "port"),
                new Bad(
                        "a registration with an illegal ip",
                        "InstanceRequest",
                        "{\"serviceName\":\"bad-svc\",\"type\":\"registerInstance\",\"instance\":{\"ip\":\"no such ip!\",\"port\":80}}",
                        "ErrorResponse",
                        400,
                        "ip"),
                new Bad(
                        "a batch whose instances are an object",
                        "BatchInstanceRequest",
                        "{\"serviceName\":\"bad-svc\",\"type\":\"batchRegisterInstance\",\"instances\":{}}",
                        "ErrorResponse",
                        400,
                        "instances"),
                new Bad(
                        "a subscription whose flag is text",
                        "SubscribeServiceRequest",
                        "{\"serviceName\":\"bad-svc\",\"subscribe\":\"yes\"}",
                        "ErrorResponse",
                        400,
                        "subscribe"),
                new Bad(
                        "a service list of page size 0",
                        "ServiceListRequest",
                        "{\"pageNo\":1,\"pageSize\":0}",
                        "ErrorResponse",
                        400,
                        "pageSize"),
                new Bad(
                        "a query of an illegal cluster",
                        "ServiceQueryRequest",
                        "{\"serviceName\":\"bad-svc\",\"cluster\":\"no such cluster!\"}",
                        "ErrorResponse",
                        400,
                        "clusters"),
                new Bad(
                        "a listen context without dataId",
                        "ConfigBatchListenRequest",
                        "{\"listen\":true,\"configListenContexts\":[{\"group\":\"G\",\"md5\":\"\"}]}",
                        "ConfigChangeBatchListenResponse",
                        400,
                        "dataId"));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void aBadRequestIsAnsweredWithNacossErrorNamingTheProblemAndWritesNothing(Bad bad) throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            RawGrpcClient.Message answer = c.request(bad.type(), bad.json());
            assertEquals(bad.answerType(), answer.type(), answer.body().toString());
            assertEquals(
                    500, answer.body().path("resultCode").asInt(), answer.body().toString());
            assertEquals(
                    bad.errorCode(),
                    answer.body().path("errorCode").asInt(),
                    answer.body().toString());
            assertTrue(
                    answer.body().path("message").asText().contains(bad.names()),
                    answer.body().toString());
            assertNull(c.streamEnd.peek(), "its own stream stays open too");
        }
        RawGrpcClient.Message svc =
                bystander.request("ServiceQueryRequest", "{\"serviceName\":\"bad-svc\",\"healthyOnly\":false}");
        assertEquals(0, svc.body().path("serviceInfo").path("hosts").size(), "no instance was written: " + svc.body());
        for (String dataId : List.of("bad-no-content", "bad-too-big", "bad-addition", "bad-tag")) {
            RawGrpcClient.Message read =
                    bystander.request("ConfigQueryRequest", "{\"dataId\":\"" + dataId + "\",\"group\":\"G\"}");
            assertEquals(300, read.body().path("errorCode").asInt(), dataId + " was not written: " + read.body());
        }
    }

    @Test
    void aMessageOverTheTransportLimitFailsThatCallOnly() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            String huge = "{\"dataId\":\"huge\",\"group\":\"G\",\"content\":\"" + "y".repeat(17 << 20) + "\"}";
            StatusRuntimeException e =
                    assertThrows(StatusRuntimeException.class, () -> c.request("ConfigPublishRequest", huge));
            assertEquals(Status.Code.RESOURCE_EXHAUSTED, e.getStatus().getCode(), e.toString());
            assertEquals(
                    "HealthCheckResponse", c.request("HealthCheckRequest", "{}").type(), "the connection lives on");
        }
    }

    @Test
    void aMissingConfigIsErrorCode300AsTheClientExpects() throws Exception {
        RawGrpcClient.Message read = bystander.request("ConfigQueryRequest", "{\"dataId\":\"never\",\"group\":\"G\"}");
        assertEquals("ConfigQueryResponse", read.type());
        assertEquals(300, read.body().path("errorCode").asInt(), read.body().toString());
    }
}
