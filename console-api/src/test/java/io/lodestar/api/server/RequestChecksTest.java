package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.grpc.GrpcProbe;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every entry point runs the one chain of request checks: the routes taken in front of Javalin
 * ({@code FastPaths}) as much as Javalin's own. A check that one of them skipped (authentication,
 * next) would be a way around it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestChecksTest {
    private static final String REFUSE = "X-Test-Refuse";

    @TempDir
    static Path dir;

    LodestarServer server;
    int port;
    int grpcPort;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Call(String why, String method, String pathAndQuery, String form) {
        @Override
        public String toString() {
            return why;
        }
    }

    static List<Call> calls() {
        return List.of(
                // FastPaths: each of its routes
                new Call("fast: plain config read", "GET", "/nacos/v1/cs/configs?dataId=d&group=G", null),
                new Call("fast: config publish", "POST", "/nacos/v1/cs/configs", "dataId=d&group=G&content=c"),
                new Call("fast: long-poll", "POST", "/nacos/v1/cs/configs/listener", "Listening-Configs=d%02G%02%01"),
                new Call("fast: instance list", "GET", "/nacos/v1/ns/instance/list?serviceName=s", null),
                new Call("fast: beat", "PUT", "/nacos/v1/ns/instance/beat?serviceName=s&ip=127.0.0.1&port=80", null),
                new Call("fast: registration", "POST", "/nacos/v1/ns/instance", "serviceName=s&ip=127.0.0.1&port=80"),
                // Javalin's routes, also for the fast paths' URLs when a request is not theirs to take
                new Call(
                        "javalin: config search", "GET", "/nacos/v1/cs/configs?search=accurate&dataId=d&group=G", null),
                new Call("javalin: service list", "GET", "/nacos/v1/ns/service/list?pageNo=1&pageSize=10", null),
                new Call("javalin: v2 config read", "GET", "/nacos/v2/cs/config?dataId=d&group=G", null));
    }

    @BeforeAll
    void start() {
        port = FreePorts.next();
        grpcPort = FreePorts.next();
        ServerSettings settings = TestSettings.standalone(dir, port, grpcPort);
        RequestChecks checks = new RequestChecks().add(request -> {
            if (request.header(REFUSE) != null) {
                throw new InvalidRequestException(REFUSE, "refused by the test's check");
            }
        });
        server = LodestarServer.start(settings, checks);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @MethodSource("calls")
    void everyEntryPointRunsTheChecks(Call call) throws Exception {
        HttpResponse<String> refused = send(call, true);
        assertEquals(400, refused.statusCode(), call + ": " + refused.body());
        assertTrue(refused.body().contains(REFUSE), call + " names the check's field: " + refused.body());

        HttpResponse<String> passed = send(call, false);
        assertNotEquals(500, passed.statusCode(), call + ": " + passed.body());
        assertTrue(!passed.body().contains(REFUSE), call + " passes without the header: " + passed.body());
    }

    @ParameterizedTest
    @MethodSource("grpcCalls")
    void everyGrpcRequestRunsTheChecks(String type) throws Exception {
        try (GrpcProbe grpc = new GrpcProbe(grpcPort)) {
            GrpcProbe.Answer refused = grpc.request(type, Map.of(REFUSE, "yes"));
            assertEquals(400, refused.errorCode(), type + ": " + refused);
            assertTrue(refused.message().contains(REFUSE), type + " names the check's field: " + refused);

            GrpcProbe.Answer passed = grpc.request(type, Map.of());
            assertTrue(!passed.message().contains(REFUSE), type + " passes without the header: " + passed);
        }
    }

    static List<String> grpcCalls() {
        return List.of(
                "HealthCheckRequest",
                "ConfigQueryRequest",
                "ConfigPublishRequest",
                "ConfigRemoveRequest",
                "ConfigBatchListenRequest",
                "InstanceRequest",
                "BatchInstanceRequest",
                "PersistentInstanceRequest",
                "ServiceQueryRequest",
                "SubscribeServiceRequest",
                "ServiceListRequest");
    }

    private HttpResponse<String> send(Call call, boolean refuse) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + call.pathAndQuery()))
                .timeout(Duration.ofSeconds(10));
        if (refuse) {
            b.header(REFUSE, "yes");
        }
        if (call.form() != null) {
            b.header("Content-Type", "application/x-www-form-urlencoded");
            b.method(call.method(), HttpRequest.BodyPublishers.ofString(call.form()));
        } else {
            b.method(call.method(), HttpRequest.BodyPublishers.noBody());
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
