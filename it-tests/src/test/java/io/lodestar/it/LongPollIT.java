package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /nacos/v1/cs/configs/listener} on the wire, as nacos-client 1.4.x speaks it. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LongPollIT {
    private static final String LISTENER = "/nacos/v1/cs/configs/listener";
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final String A = "\u0001";
    private static final String B = "\u0002";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();
    /** HTTP/1.1 so every in-flight request has its own connection, as nacos-client's have. */
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private ServerProcess server() {
        ServerProcess p = cluster.startStandalone("long-poll");
        return p;
    }

    private static String md5(String content) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("MD5").digest(content.getBytes(StandardCharsets.UTF_8)));
    }

    private static void publish(ServerProcess p, String dataId, String group, String tenant, String content)
            throws Exception {
        Http.Response r = Http.postForm(
                p.httpAddress(),
                CONFIGS,
                params("dataId", dataId, "group", group, "tenant", tenant, "content", content));
        assertEquals(200, r.status(), r.body());
    }

    private static HttpRequest poll(ServerProcess p, String listening, Map<String, String> headers, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + LISTENER))
                .timeout(timeout)
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .POST(HttpRequest.BodyPublishers.ofString(
                        listening == null
                                ? ""
                                : "Listening-Configs=" + URLEncoder.encode(listening, StandardCharsets.UTF_8)));
        headers.forEach(b::header);
        return b.build();
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String failed(List<CompletableFuture<HttpResponse<String>>> polls) {
        return polls.stream()
                        .filter(CompletableFuture::isCompletedExceptionally)
                        .count() + ", e.g. "
                + polls.stream()
                        .filter(CompletableFuture::isCompletedExceptionally)
                        .findFirst()
                        .map(f -> f.handle((r, e) -> e.toString()).join())
                        .orElse("none");
    }

    private static int held(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), "/lodestar/v1/config/listeners")
                .get("held")
                .asInt();
    }

    @Test
    void staleMd5sAreAnsweredAtOnceNamingTheChangedKeysUrlEncodedWithATrailingNewline() throws Exception {
        ServerProcess p = server();
        publish(p, "d1", "G", "", "v2");
        publish(p, "d2", "G", "ns-1", "t2");
        publish(p, "same", "G", "", "s");
        String listening = "d1" + B + "G" + B + md5("v1") + A
                + "same" + B + "G" + B + md5("s") + A
                + "d2" + B + "G" + B + md5("t1") + B + "ns-1" + A;
        long start = System.nanoTime();
        HttpResponse<String> r =
                send(poll(p, listening, Map.of("Long-Pulling-Timeout", "30000"), Duration.ofSeconds(5)));
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "answered without holding");
        assertEquals("d1%02G%01d2%02G%02ns-1%01\n", r.body(), "changed keys only, tenant when not public");
        assertEquals("no-cache", r.headers().firstValue("Pragma").orElse(null));
        assertEquals(
                "no-cache,no-store", r.headers().firstValue("Cache-Control").orElse(null));
    }

    @Test
    void thePlainPollAnswersAsTheRouteDoesAndIsCounted() throws Exception {
        ServerProcess p = server();
        publish(p, "d1", "G", "", "v2");
        String listening = "d1" + B + "G" + B + md5("v1") + A;
        HttpResponse<String> fast =
                send(poll(p, listening, Map.of("Long-Pulling-Timeout", "30000"), Duration.ofSeconds(5)));
        // a parameter the route ignores takes the poll past the fast path to the route
        HttpRequest viaRouteRequest =
                poll(p, listening, Map.of("Long-Pulling-Timeout", "30000"), Duration.ofSeconds(5));
        HttpResponse<String> viaRoute = send(HttpRequest.newBuilder(viaRouteRequest, (n, v) -> true)
                .uri(URI.create("http://" + p.httpAddress() + LISTENER + "?extra=1"))
                .build());
        assertEquals(List.of(200, "d1%02G%01\n"), List.of(fast.statusCode(), fast.body()));
        assertEquals(List.of(viaRoute.statusCode(), viaRoute.body()), List.of(fast.statusCode(), fast.body()));
        for (String h : new String[] {"Content-Type", "Pragma", "Cache-Control"}) {
            assertEquals(viaRoute.headers().allValues(h), fast.headers().allValues(h), h);
        }
        // a malformed poll is the route's, which names the problem
        HttpResponse<String> bad =
                send(poll(p, "d1" + B + "G" + A, Map.of("Long-Pulling-Timeout", "30000"), Duration.ofSeconds(5)));
        assertEquals(400, bad.statusCode(), bad.body());
        String metrics = Http.get(p.httpAddress(), "/metrics").body();
        assertTrue(
                java.util.regex.Pattern.compile("(?m)^http_server_requests_seconds_count\\{method=\"POST\",route=\""
                                + LISTENER + "\",status=\"200\"} 2(\\.0)?$")
                        .matcher(metrics)
                        .find(),
                "both polls counted: " + metrics);
    }

    @Test
    void shortPollingWithoutTheTimeoutHeaderAnswersAtOnce() throws Exception {
        ServerProcess p = server();
        publish(p, "d", "G", "", "v");
        assertEquals(
                "",
                send(poll(p, "d" + B + "G" + B + md5("v") + A, Map.of(), Duration.ofSeconds(5)))
                        .body());
        assertEquals(
                "d%02G%01\n",
                send(poll(p, "d" + B + "G" + B + md5("old") + A, Map.of(), Duration.ofSeconds(5)))
                        .body());
    }

    @Test
    void anUpToDatePollIsHeldUntilAPublishFromAnotherRequestAndThenAnswered() throws Exception {
        ServerProcess p = server();
        publish(p, "watched", "G", "", "v1");
        CompletableFuture<HttpResponse<String>> held = client.sendAsync(
                poll(
                        p,
                        "watched" + B + "G" + B + md5("v1") + A,
                        Map.of("Long-Pulling-Timeout", "30000"),
                        Duration.ofSeconds(40)),
                HttpResponse.BodyHandlers.ofString());
        Await.until(Duration.ofSeconds(10), "the poll to be held", () -> held(p) == 1);
        assertFalse(held.isDone(), "held, not answered");
        publish(p, "watched", "G", "", "v2");
        HttpResponse<String> r = held.get(5, TimeUnit.SECONDS);
        assertEquals(200, r.statusCode());
        assertEquals("watched%02G%01\n", r.body());
        assertEquals(0, held(p), "answered polls are released");
    }

    @Test
    void anUnchangedPollIsHeldForHalfASecondLessThanItsTimeoutThenAnsweredEmpty() throws Exception {
        ServerProcess p = server();
        publish(p, "quiet", "G", "", "v");
        long start = System.nanoTime();
        HttpResponse<String> r = send(poll(
                p,
                "quiet" + B + "G" + B + md5("v") + A,
                Map.of("Long-Pulling-Timeout", "10000"),
                Duration.ofSeconds(20)));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(200, r.statusCode());
        assertEquals("", r.body(), "nothing changed");
        // Nacos holds max(10000, timeout - 500) ms: 10 s for a 10 s timeout
        assertTrue(ms >= 9_900, "held for about 10 s, answered after " + ms + " ms");
        assertTrue(ms < 14_000, "answered in time, after " + ms + " ms");
    }

    @Test
    void noHangupAnswersAtOnceEvenWhenNothingChanged() throws Exception {
        ServerProcess p = server();
        publish(p, "d", "G", "", "v");
        long start = System.nanoTime();
        HttpResponse<String> r = send(poll(
                p,
                "d" + B + "G" + B + md5("v") + A,
                Map.of("Long-Pulling-Timeout", "30000", "Long-Pulling-Timeout-No-Hangup", "true"),
                Duration.ofSeconds(5)));
        assertEquals(200, r.statusCode());
        assertEquals("", r.body());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3), "not held");
    }

    @Test
    void aMissingConfigListenedWithAnEmptyMd5IsNotAChange() throws Exception {
        ServerProcess p = server();
        String listening = "absent" + B + "G" + B + A;
        assertEquals(
                "", send(poll(p, listening, Map.of(), Duration.ofSeconds(5))).body(), "short poll: no change");
        CompletableFuture<HttpResponse<String>> held = client.sendAsync(
                poll(p, listening, Map.of("Long-Pulling-Timeout", "30000"), Duration.ofSeconds(40)),
                HttpResponse.BodyHandlers.ofString());
        Await.until(Duration.ofSeconds(10), "the poll to be held", () -> held(p) == 1);
        publish(p, "absent", "G", "", "now here");
        assertEquals("absent%02G%01\n", held.get(5, TimeUnit.SECONDS).body(), "its creation is a change");
    }

    record Bad(String why, String listening, Map<String, String> headers, String mentions) {}

    @Test
    void badListenerRequestsGetA4xxNamingTheProblem() throws Exception {
        ServerProcess p = server();
        String ok = "d" + B + "G" + B + A;
        List<Bad> cases = List.of(
                new Bad(
                        "missing Listening-Configs",
                        null,
                        Map.of("Long-Pulling-Timeout", "30000"),
                        "Listening-Configs"),
                new Bad("only separators", A + A, Map.of(), "Listening-Configs"),
                new Bad("entry with two fields", "d" + B + "G" + A, Map.of(), "fields"),
                new Bad("entry with five fields", "d" + B + "G" + B + "m" + B + "t" + B + "x" + A, Map.of(), "fields"),
                new Bad("illegal dataId", "a/b" + B + "G" + B + A, Map.of(), "dataId"),
                new Bad("illegal group", "d" + B + "g g" + B + A, Map.of(), "group"),
                new Bad(
                        "bad escape after the second decoding",
                        "d%zz" + B + "G" + B + A,
                        Map.of(),
                        "Listening-Configs"),
                new Bad("non-numeric timeout", ok, Map.of("Long-Pulling-Timeout", "soon"), "Long-Pulling-Timeout"),
                new Bad("negative timeout", ok, Map.of("Long-Pulling-Timeout", "-1"), "Long-Pulling-Timeout"));
        for (Bad c : cases) {
            HttpResponse<String> r = send(poll(p, c.listening, c.headers, Duration.ofSeconds(5)));
            assertEquals(400, r.statusCode(), c.why + ": " + r.body());
            assertTrue(r.body().contains(c.mentions), c.why + " should name '" + c.mentions + "': " + r.body());
        }
        StringBuilder tooMany = new StringBuilder();
        for (int i = 0; i <= 3000; i++) {
            tooMany.append("d").append(i).append(B).append("G").append(B).append(A);
        }
        HttpResponse<String> r = send(poll(p, tooMany.toString(), Map.of(), Duration.ofSeconds(5)));
        assertEquals(400, r.statusCode(), r.body());
        assertTrue(r.body().contains("3000"), r.body());

        HttpResponse<String> get = send(HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + LISTENER))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build());
        // GET is not a poll: it asks who listens to a config (Nacos's listener query), and names its
        // missing field rather than holding anything
        assertEquals(400, get.statusCode(), "GET is the listener query, not a poll: " + get.body());
        assertTrue(get.body().contains("dataId"), get.body());
        assertEquals(0, held(p), "no bad request was held");
    }

    @Test
    void twoThousandHeldPollsAreAllWokenByOnePublish() throws Exception {
        ServerProcess p = server();
        publish(p, "hot", "G", "", "v1");
        int n = 2_000;
        // Held for 119.5 s: on a loaded 2-core machine connecting 2,000 polls can take longer than
        // the client's usual 30 s, and the first ones must still be held when the last arrive.
        HttpRequest request = poll(
                p,
                "hot" + B + "G" + B + md5("v1") + A,
                Map.of("Long-Pulling-Timeout", "120000"),
                Duration.ofSeconds(150));
        List<CompletableFuture<HttpResponse<String>>> polls = new ArrayList<>();
        // in waves: 2,000 simultaneous connects would overflow the listen backlog, and the SYN
        // retries would cost seconds; clients of a real fleet do not all connect in the same ms
        int wave = 200;
        for (int sent = 0; sent < n; ) {
            for (int i = 0; i < wave; i++, sent++) {
                polls.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
            }
            int expected = sent;
            Await.until(
                    Duration.ofSeconds(30),
                    expected + " polls held (failed: " + failed(polls) + ")",
                    () -> held(p) == expected);
        }
        assertTrue(polls.stream().noneMatch(CompletableFuture::isDone), "all held, none answered");
        publish(p, "hot", "G", "", "v2");
        CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        for (CompletableFuture<HttpResponse<String>> f : polls) {
            HttpResponse<String> r = f.get();
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("hot%02G%01\n", r.body());
        }
        assertEquals(0, held(p));
    }
}
