package io.lodestar.api.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.cluster.FreePorts;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    LodestarServer server;
    int grpcPort;
    String token;

    @BeforeAll
    void start() throws Exception {
        int httpPort = FreePorts.next();
        grpcPort = FreePorts.next();
        server = LodestarServer.start(TestSettings.standalone(dir, httpPort, grpcPort, true));
        Path file = dir.resolve("initial-admin-password");
        Await.until(Duration.ofSeconds(30), "the admin's password file", () -> Files.exists(file));
        HttpResponse<String> login = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + httpPort + "/nacos/v1/auth/users/login?username=nacos"))
                                .header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "password=" + Files.readString(file).trim()))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, login.statusCode(), login.body());
        token = new ObjectMapper().readTree(login.body()).get("accessToken").asText();
    }

    @AfterAll
    void stop() {
        server.close();
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
}
