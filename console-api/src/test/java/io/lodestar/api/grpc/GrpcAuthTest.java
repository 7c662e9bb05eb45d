package io.lodestar.api.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.auth.AuthServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** gRPC with {@code --auth on}: a request proves its caller with the token in its metadata, as nacos-client sends it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcAuthTest {
    private static final String QUERY = "{\"dataId\":\"d\",\"group\":\"G\",\"tenant\":\"\"}";

    @TempDir
    static Path dir;

    AuthServer s;
    int grpcPort;
    String token;

    @BeforeAll
    void start() throws Exception {
        s = AuthServer.start(dir);
        grpcPort = s.grpcPort;
        token = s.token;
    }

    @AfterAll
    void stop() {
        s.close();
    }

    @Test
    void aRequestWithoutATokenIsRefusedWithNoRightAndOneWithItIsServed() throws Exception {
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5), "setting up a connection needs no token");
            assertEquals(
                    "HealthCheckResponse", c.request("HealthCheckRequest", "{}").type());

            RawGrpcClient.Message refused = c.request("ConfigQueryRequest", QUERY);
            assertEquals(403, refused.body().path("errorCode").asInt(), refused.toString());
            RawGrpcClient.Message forged = c.request(RawGrpcClient.payload(
                    "ConfigQueryRequest", QUERY, Map.of("accessToken", token.substring(0, token.length() - 2) + "xx")));
            assertEquals(403, forged.body().path("errorCode").asInt(), forged.toString());

            RawGrpcClient.Message served =
                    c.request(RawGrpcClient.payload("ConfigQueryRequest", QUERY, Map.of("accessToken", token)));
            assertEquals(300, served.body().path("errorCode").asInt(), "served: the config does not exist");
        }
    }

    @Test
    void aUsersGrantsDecideWhatItsGrpcRequestsMayDo() throws Exception {
        String reader = s.user("grpc-reader", "reader-password");
        assertEquals(
                200,
                s.send("POST", "/nacos/v1/auth/roles", "role=grpc-readers&username=grpc-reader", s.admin())
                        .statusCode());
        assertEquals(
                200,
                s.send("POST", "/nacos/v1/auth/permissions", "role=grpc-readers&resource=public&action=r", s.admin())
                        .statusCode());
        Map<String, String> auth = Map.of("accessToken", reader);
        try (RawGrpcClient c = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(c.awaitPushed("SetupAckRequest", 5));
            assertEquals(
                    300,
                    c.request(RawGrpcClient.payload("ConfigQueryRequest", QUERY, auth))
                            .body()
                            .path("errorCode")
                            .asInt(),
                    "a read is served");
            RawGrpcClient.Message publish = c.request(RawGrpcClient.payload(
                    "ConfigPublishRequest",
                    "{\"dataId\":\"d\",\"group\":\"G\",\"tenant\":\"\",\"content\":\"x\"}",
                    auth));
            assertEquals(403, publish.body().path("errorCode").asInt(), publish.toString());
            assertTrue(
                    publish.body().path("message").asText().contains("may not write public:G:config/d"),
                    publish.toString());
            RawGrpcClient.Message listen = c.request(RawGrpcClient.payload(
                    "ConfigBatchListenRequest",
                    "{\"listen\":true,\"configListenContexts\":[{\"dataId\":\"d\",\"group\":\"G\",\"tenant\":\"\",\"md5\":\"\"},"
                            + "{\"dataId\":\"d\",\"group\":\"G\",\"tenant\":\"team-b\",\"md5\":\"\"}]}",
                    auth));
            assertEquals(
                    403, listen.body().path("errorCode").asInt(), "a listener hears only what it may read: " + listen);
            RawGrpcClient.Message register = c.request(RawGrpcClient.payload(
                    "InstanceRequest",
                    "{\"type\":\"registerInstance\",\"namespace\":\"public\",\"groupName\":\"G\",\"serviceName\":\"s\","
                            + "\"instance\":{\"ip\":\"127.0.0.1\",\"port\":1}}",
                    auth));
            assertEquals(403, register.body().path("errorCode").asInt(), register.toString());
            java.nio.file.Path audit = s.dir.resolve("audit").resolve("audit.log");
            io.lodestar.kv.testing.Await.until("the refused publish in the audit log", () -> {
                try {
                    return java.nio.file.Files.readString(audit)
                            .contains("\"principal\":\"grpc-reader\",\"source\":\"127.0.0.1\","
                                    + "\"entryPoint\":\"grpc\",\"operation\":\"ConfigPublishRequest\",\"resources\":[\"public:G:config/d\"],"
                                    + "\"outcome\":403");
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            assertEquals(
                    300,
                    c.request(RawGrpcClient.payload("ConfigQueryRequest", QUERY, Map.of("accessToken", token)))
                            .body()
                            .path("errorCode")
                            .asInt(),
                    "nothing was written");
        }
    }
}
