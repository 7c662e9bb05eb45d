package io.lodestar.api.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that stops reading its stream while the node pushes it large instance lists is closed
 * once more than {@code grpc.unread-push-bytes} wait for it, counted in bytes; another client is
 * served meanwhile and after.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class GrpcUnreadPushTest {
    private static final long LIMIT = 256 << 10;
    private static final Pattern REFUSALS =
            Pattern.compile("lodestar_limit_refusals_total\\{limit=\"grpc.unread-push-bytes\"} ([0-9.]+)");

    @TempDir
    Path dir;

    @Test
    void aClientThatStopsReadingIsClosedPastItsUnreadBytes() throws Exception {
        int httpPort = FreePorts.next();
        int grpcPort = FreePorts.next();
        Limits limits = Limits.defaults().with(Limit.GRPC_UNREAD_PUSH_BYTES, LIMIT);
        try (LodestarServer server =
                        LodestarServer.start(TestSettings.standalone(dir, httpPort, grpcPort, false, limits));
                RawGrpcClient stalled = RawGrpcClient.setUpAndStopReading(grpcPort);
                RawGrpcClient registrar = new RawGrpcClient(grpcPort).setUp()) {
            assertNotNull(stalled.awaitPushed("SetupAckRequest", 5));
            assertNotNull(registrar.awaitPushed("SetupAckRequest", 5));
            assertEquals(
                    "SubscribeServiceResponse",
                    stalled.request("SubscribeServiceRequest", "{\"serviceName\":\"wide\",\"subscribe\":true}")
                            .type());

            String metadata = "x".repeat(4096);
            for (int i = 0; i < 400 && refusals(httpPort) == 0; i++) {
                RawGrpcClient.Message registered = registrar.request(
                        "InstanceRequest",
                        "{\"serviceName\":\"wide\",\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0."
                                + (1 + i / 200) + "\",\"port\":" + (1000 + i) + ",\"metadata\":{\"m\":\"" + metadata
                                + "\"}}}");
                assertEquals(
                        "InstanceResponse", registered.type(), registered.body().toString());
            }
            Await.until("the stalled connection closed for its unread bytes", () -> refusals(httpPort) == 1);
            assertEquals(
                    "InstanceResponse",
                    registrar
                            .request(
                                    "InstanceRequest",
                                    "{\"serviceName\":\"other\",\"type\":\"registerInstance\","
                                            + "\"instance\":{\"ip\":\"127.0.0.9\",\"port\":9}}")
                            .type(),
                    "another connection is served");
        }
    }

    private static double refusals(int httpPort) throws Exception {
        String text = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher m = REFUSALS.matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
