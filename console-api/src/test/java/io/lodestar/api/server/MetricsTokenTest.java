package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a metrics token set, {@code /metrics} answers only a scraper presenting it (others get 403,
 * as every unauthenticated HTTP request does); the probes stay open.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsTokenTest {
    private static final String TOKEN = "scrape-7f3c9a1e2b";

    @TempDir
    static Path dir;

    LodestarServer server;
    int port;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void start() {
        port = FreePorts.next();
        server = LodestarServer.start(TestSettings.withMetricsToken(
                TestSettings.standalone(dir, port, -1, false), TOKEN.getBytes(StandardCharsets.UTF_8)));
        Await.until(
                "ready", () -> get("/nacos/v1/console/health/readiness", null).statusCode() == 200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private HttpResponse<String> get(String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aScraperWithTheTokenReadsTheMetrics() throws Exception {
        HttpResponse<String> r = get("/metrics", "Bearer " + TOKEN);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("lodestar_limit_refusals_total"), r.body());
        assertEquals(200, get("/metrics", "bearer " + TOKEN).statusCode(), "the scheme is case-insensitive");
    }

    @Test
    void noTokenAWrongOneOrAnotherSchemeIsRefusedWithoutTheMetrics() throws Exception {
        for (String authorization : new String[] {
            null, "", "Bearer", "Bearer " + TOKEN + "x", "Bearer " + TOKEN.substring(1), "Basic " + TOKEN, TOKEN
        }) {
            HttpResponse<String> r = get("/metrics", authorization);
            assertEquals(403, r.statusCode(), authorization + ": " + r.body());
            assertTrue(r.body().contains("--metrics-token-file"), r.body());
            assertTrue(!r.body().contains("lodestar_"), "no metric in a refusal: " + r.body());
        }
    }

    @Test
    void theProbesStayOpen() throws Exception {
        assertEquals(200, get("/nacos/v1/console/health/liveness", null).statusCode());
        assertEquals(200, get("/nacos/v1/console/health/readiness", null).statusCode());
    }
}
