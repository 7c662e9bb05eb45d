package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.grpc.RawGrpcClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * One regression test per finding of the review of {@code 36a87ed}, where the access check read a
 * request's namespace or group by other names than its handler did. {@code alice} holds {@code rw}
 * on namespace {@code team-a} only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OneRequestOneCheckTest {
    private static final String SECRET = "public-secret";

    @TempDir
    static Path dir;

    AuthServer s;
    Map<String, String> alice;
    String aliceToken;

    @BeforeAll
    void start() throws Exception {
        s = AuthServer.start(dir);
        ok(s.send("POST", "/nacos/v1/console/namespaces", "customNamespaceId=team-a&namespaceName=A", s.admin()));
        ok(s.send("POST", "/nacos/v1/console/namespaces", "customNamespaceId=team-b&namespaceName=B", s.admin()));
        aliceToken = s.user("alice", "alice-password");
        alice = AuthServer.bearer(aliceToken);
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=team-a-rw&username=alice", s.admin()));
        ok(s.send("POST", "/nacos/v1/auth/permissions", "role=team-a-rw&resource=team-a&action=rw", s.admin()));
        ok(s.send(
                "POST", "/nacos/v1/cs/configs", "dataId=db.password&group=DEFAULT_GROUP&content=" + SECRET, s.admin()));
        ok(s.send(
                "POST",
                "/nacos/v1/cs/configs",
                "tenant=team-b&dataId=db.password&group=DEFAULT_GROUP&content=teamb-secret",
                s.admin()));
        ok(s.send("POST", "/nacos/v1/ns/instance", "serviceName=payments&ip=127.0.0.1&port=9001", s.admin()));
    }

    @AfterAll
    void stop() {
        s.close();
    }

    @Test
    void aV1ReadNamingTeamAByNamespaceIdReadsTeamANotThePublicSecret() throws Exception {
        HttpResponse<String> r = s.send(
                "GET", "/nacos/v1/cs/configs?dataId=db.password&group=DEFAULT_GROUP&namespaceId=team-a", null, alice);
        assertEquals(404, r.statusCode(), "team-a has no such config: " + r.body());
        assertFalse(r.body().contains(SECRET), r.body());
    }

    @Test
    void aV1PublishOrDeleteNamingTeamAByNamespaceIdLeavesThePublicConfigAlone() throws Exception {
        ok(s.send(
                "POST",
                "/nacos/v1/cs/configs",
                "dataId=db.password&group=DEFAULT_GROUP&namespaceId=team-a&content=x",
                alice));
        ok(s.send(
                "DELETE",
                "/nacos/v1/cs/configs?dataId=db.password&group=DEFAULT_GROUP&namespaceId=team-a",
                null,
                alice));
        assertEquals(SECRET, publicSecret());
    }

    @Test
    void aV2RequestWhoseTenantAndNamespaceIdDisagreeIsRefusedNamingBoth() throws Exception {
        for (String method : new String[] {"GET", "DELETE"}) {
            HttpResponse<String> r = s.send(
                    method,
                    "/nacos/v2/cs/config?dataId=db.password&group=DEFAULT_GROUP&tenant=team-a&namespaceId=team-b",
                    null,
                    alice);
            assertEquals(400, r.statusCode(), r.body());
            assertTrue(r.body().contains("'tenant'") && r.body().contains("'namespaceId'"), r.body());
            assertFalse(r.body().contains("teamb-secret"), r.body());
        }
        assertEquals(
                "teamb-secret",
                s.get("/nacos/v1/cs/configs?tenant=team-b&dataId=db.password&group=DEFAULT_GROUP", s.admin())
                        .body());
    }

    @Test
    void aBlurSearchShowAllAndHistoryNamingTeamAStayInTeamA() throws Exception {
        for (String query : new String[] {
            "/nacos/v1/cs/configs?search=blur&dataId=db*&group=&pageNo=1&pageSize=10&namespaceId=team-a",
            "/nacos/v1/cs/configs?show=all&dataId=db.password&group=DEFAULT_GROUP&namespaceId=team-a",
            "/nacos/v1/cs/history?search=accurate&dataId=db.password&group=DEFAULT_GROUP&namespaceId=team-a"
        }) {
            HttpResponse<String> r = s.send("GET", query, null, alice);
            assertTrue(r.statusCode() == 200 || r.statusCode() == 404, query + ": " + r.statusCode() + " " + r.body());
            assertFalse(r.body().contains(SECRET), query + ": " + r.body());
        }
    }

    @Test
    void anInstanceDeleteOrRegistrationNamingTeamAByNamespaceStaysInTeamA() throws Exception {
        ok(s.send(
                "DELETE",
                "/nacos/v1/ns/instance?serviceName=payments&ip=127.0.0.1&port=9001&namespace=team-a",
                null,
                alice));
        ok(s.send(
                "POST",
                "/nacos/v1/ns/instance",
                "serviceName=payments&ip=127.0.0.66&port=9100&namespace=team-a",
                alice));
        JsonNode list = AuthServer.JSON.readTree(s.get("/nacos/v1/ns/instance/list?serviceName=payments", s.admin())
                .body());
        assertEquals(1, list.path("hosts").size(), list.toString());
        assertEquals("127.0.0.1", list.path("hosts").path(0).path("ip").asText(), list.toString());
        JsonNode teamA = AuthServer.JSON.readTree(
                s.get("/nacos/v1/ns/instance/list?serviceName=payments&namespaceId=team-a", s.admin())
                        .body());
        assertEquals("127.0.0.66", teamA.path("hosts").path(0).path("ip").asText(), "it landed in team-a: " + teamA);
    }

    @Test
    void grpcRequestsCarryingNamespaceIdReachOnlyThatNamespace() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(s.grpcPort).setUp()) {
            c.awaitPushed("SetupAckRequest", 5);
            Map<String, String> auth = Map.of("accessToken", aliceToken);
            RawGrpcClient.Message query = c.request(RawGrpcClient.payload(
                    "ConfigQueryRequest",
                    "{\"dataId\":\"db.password\",\"group\":\"DEFAULT_GROUP\",\"namespaceId\":\"team-a\"}",
                    auth));
            assertEquals(300, query.body().path("errorCode").asInt(), "team-a has no such config: " + query);
            RawGrpcClient.Message register = c.request(RawGrpcClient.payload(
                    "InstanceRequest",
                    "{\"type\":\"registerInstance\",\"namespaceId\":\"team-a\",\"serviceName\":\"payments\","
                            + "\"instance\":{\"ip\":\"127.0.0.67\",\"port\":9100}}",
                    auth));
            assertEquals(0, register.body().path("errorCode").asInt(), register.toString());
            assertFalse(
                    s.get("/nacos/v1/ns/instance/list?serviceName=payments", s.admin())
                            .body()
                            .contains("127.0.0.67"),
                    "nothing was registered in public");
            RawGrpcClient.Message mixed = c.request(RawGrpcClient.payload(
                    "InstanceRequest",
                    "{\"type\":\"registerInstance\",\"namespace\":\"team-a\",\"namespaceId\":\"public\","
                            + "\"serviceName\":\"payments\",\"instance\":{\"ip\":\"127.0.0.68\",\"port\":9100}}",
                    auth));
            assertEquals(400, mixed.body().path("errorCode").asInt(), mixed.toString());
        }
    }

    @Test
    void theAuditLineNamesTheNamespaceActuallyWritten() throws Exception {
        ok(s.send("POST", "/nacos/v1/cs/configs", "dataId=audited&group=G&namespaceId=team-a&content=x", alice));
        String expected = "\"principal\":\"alice\",\"source\":\"127.0.0.1\",\"entryPoint\":\"http\","
                + "\"operation\":\"POST /nacos/v1/cs/configs\",\"resources\":[\"team-a:G:config/audited\"],\"outcome\":200";
        Path log = dir.resolve("audit").resolve("audit.log");
        io.lodestar.kv.testing.Await.until("the audit line", () -> {
            try {
                return Files.readString(log).contains(expected);
            } catch (java.io.IOException e) {
                return false;
            }
        });
        assertEquals(
                "x",
                s.get("/nacos/v1/cs/configs?tenant=team-a&dataId=audited&group=G", s.admin())
                        .body());
    }

    @Test
    void grpcMetadataWithANestedValueIsRefusedAsOverHttp() throws Exception {
        HttpResponse<String> http = s.send(
                "POST",
                "/nacos/v1/ns/instance",
                "serviceName=nested&ip=127.0.0.2&port=1&metadata=%7B%22a%22%3A%7B%22b%22%3A1%7D%7D",
                s.admin());
        assertEquals(400, http.statusCode(), http.body());
        try (RawGrpcClient c = new RawGrpcClient(s.grpcPort).setUp()) {
            c.awaitPushed("SetupAckRequest", 5);
            RawGrpcClient.Message grpc = c.request(RawGrpcClient.payload(
                    "InstanceRequest",
                    "{\"type\":\"registerInstance\",\"serviceName\":\"nested\","
                            + "\"instance\":{\"ip\":\"127.0.0.2\",\"port\":1,\"metadata\":{\"a\":{\"b\":1}}}}",
                    Map.of("accessToken", s.token)));
            assertEquals(400, grpc.body().path("errorCode").asInt(), grpc.toString());
            assertTrue(grpc.body().path("message").asText().contains("metadata"), grpc.toString());
        }
    }

    @Test
    void grpcServiceListAnswersTheLargestPageSizeASpringCloudAppAsksFor() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(s.grpcPort).setUp()) {
            c.awaitPushed("SetupAckRequest", 5);
            RawGrpcClient.Message list = c.request(RawGrpcClient.payload(
                    "ServiceListRequest",
                    "{\"pageNo\":1,\"pageSize\":2147483647,\"namespace\":\"public\",\"groupName\":\"DEFAULT_GROUP\"}",
                    Map.of("accessToken", s.token)));
            assertEquals(0, list.body().path("errorCode").asInt(), list.toString());
            assertTrue(list.body().path("serviceNames").toString().contains("payments"), list.toString());
        }
    }

    private String publicSecret() throws Exception {
        return s.get("/nacos/v1/cs/configs?dataId=db.password&group=DEFAULT_GROUP", s.admin())
                .body();
    }

    private static void ok(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
    }
}
