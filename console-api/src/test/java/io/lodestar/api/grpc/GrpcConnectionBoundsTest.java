package io.lodestar.api.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.testing.FreePorts;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * One gRPC connection listens to at most {@code grpc.listens-per-connection} configs and subscribes
 * to at most {@code grpc.subscriptions-per-connection} services: past either it is refused with an
 * error naming the limit, a refused batch adds none of its keys, and another connection is served
 * as before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrpcConnectionBoundsTest {
    private static final int MAX = 3;

    @TempDir
    static Path dir;

    LodestarServer server;
    int grpcPort;

    @BeforeAll
    void start() {
        grpcPort = FreePorts.next();
        Limits limits = Limits.defaults()
                .with(Limit.GRPC_LISTENS_PER_CONNECTION, MAX)
                .with(Limit.GRPC_SUBSCRIPTIONS_PER_CONNECTION, MAX);
        server = LodestarServer.start(TestSettings.standalone(dir, FreePorts.next(), grpcPort, false, limits));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private RawGrpcClient connect() throws Exception {
        RawGrpcClient c = new RawGrpcClient(grpcPort).setUp();
        assertNotNull(c.awaitPushed("SetupAckRequest", 5));
        return c;
    }

    private static RawGrpcClient.Message listen(RawGrpcClient c, boolean listen, int from, int count) throws Exception {
        String contexts = IntStream.range(from, from + count)
                .mapToObj(i -> "{\"dataId\":\"k" + i + "\",\"group\":\"G\",\"tenant\":\"\",\"md5\":\"\"}")
                .collect(Collectors.joining(","));
        return c.request(
                "ConfigBatchListenRequest", "{\"listen\":" + listen + ",\"configListenContexts\":[" + contexts + "]}");
    }

    private static void assertRefused(RawGrpcClient.Message answer, String limit) {
        assertTrue(answer.body().path("errorCode").asInt() != 0, answer.toString());
        assertTrue(answer.body().path("message").asText().contains(limit), answer.toString());
    }

    private static void assertServed(RawGrpcClient.Message answer) {
        assertEquals(0, answer.body().path("errorCode").asInt(0), answer.toString());
        assertEquals(200, answer.body().path("resultCode").asInt(200), answer.toString());
    }

    @Test
    void aConnectionListensToAtMostItsLimitOfConfigs() throws Exception {
        try (RawGrpcClient c = connect();
                RawGrpcClient other = connect()) {
            assertRefused(listen(c, true, 0, MAX + 1), "grpc.listens-per-connection");
            assertServed(listen(c, true, 0, MAX)); // nothing of the refused batch was kept
            assertServed(listen(c, true, 1, 2)); // listened already: no new key
            assertRefused(listen(c, true, MAX, 1), "grpc.listens-per-connection");
            assertServed(listen(c, false, 0, 1));
            assertServed(listen(c, true, MAX, 1)); // room again after a stop
            assertServed(listen(other, true, 0, MAX));
        }
    }

    private static RawGrpcClient.Message subscribe(RawGrpcClient c, int service, boolean subscribe) throws Exception {
        return c.request(
                "SubscribeServiceRequest",
                "{\"serviceName\":\"s" + service + "\",\"groupName\":\"G\",\"subscribe\":" + subscribe + "}");
    }

    @Test
    void aConnectionSubscribesToAtMostItsLimitOfServices() throws Exception {
        try (RawGrpcClient c = connect();
                RawGrpcClient other = connect()) {
            for (int i = 0; i < MAX; i++) {
                assertServed(subscribe(c, i, true));
            }
            assertServed(subscribe(c, 0, true)); // subscribed already
            assertRefused(subscribe(c, MAX, true), "grpc.subscriptions-per-connection");
            assertServed(subscribe(c, 0, false));
            assertServed(subscribe(c, MAX, true));
            assertServed(subscribe(other, 0, true));
        }
    }
}
