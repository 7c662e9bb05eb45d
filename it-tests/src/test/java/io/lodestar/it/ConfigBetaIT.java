package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Gray release (beta) as Nacos 1.4 serves it, plus Lodestar's promote. Every test client connects
 * from 127.0.0.1, so "listed" means a beta listing 127.0.0.1 and "not listed" a beta listing only
 * 10.1.2.3.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigBetaIT {
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final String LISTENER = "/nacos/v1/cs/configs/listener";
    private static final String PROMOTE = "/lodestar/v1/cs/configs/beta/promote";
    private static final String ME = "127.0.0.1";
    private static final String SOMEONE_ELSE = "10.1.2.3";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private ServerProcess server() {
        ServerProcess p = cluster.startStandalone("beta");
        return p;
    }

    private static String md5(String content) throws Exception {
        return HexFormat.of()
                .formatHex(MessageDigest.getInstance("MD5").digest(content.getBytes(StandardCharsets.UTF_8)));
    }

    private static String form(Map<String, String> form) {
        return form.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
    }

    private HttpResponse<String> publishBeta(ServerProcess p, Map<String, String> form, String betaIps)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + CONFIGS))
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form(form)));
        if (betaIps != null) {
            b.header("betaIps", betaIps);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void publishBeta(ServerProcess p, String dataId, String content, String betaIps) throws Exception {
        HttpResponse<String> r =
                publishBeta(p, params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content), betaIps);
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("true", r.body());
    }

    private static void publish(ServerProcess p, String dataId, String content) throws Exception {
        Http.Response r = StandaloneServerIT.publish(p, dataId, content);
        assertEquals(200, r.status(), r.body());
    }

    private static Http.Response read(ServerProcess p, String dataId) throws Exception {
        return Http.get(p.httpAddress(), CONFIGS + "?dataId=" + dataId + "&group=DEFAULT_GROUP");
    }

    private static JsonNode queryBeta(ServerProcess p, String dataId) throws Exception {
        return Http.json(p.httpAddress(), CONFIGS + "?beta=true&dataId=" + dataId + "&group=DEFAULT_GROUP");
    }

    private CompletableFuture<HttpResponse<String>> poll(ServerProcess p, String dataId, String md5, long timeoutMs) {
        String listening = dataId + "\u0002DEFAULT_GROUP\u0002" + md5 + "\u0001";
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + LISTENER))
                .timeout(Duration.ofMillis(timeoutMs + 20_000))
                .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                .header("Long-Pulling-Timeout", Long.toString(timeoutMs))
                .POST(HttpRequest.BodyPublishers.ofString(
                        "Listening-Configs=" + URLEncoder.encode(listening, StandardCharsets.UTF_8)))
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private static int held(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), "/lodestar/v1/config/listeners")
                .get("held")
                .asInt();
    }

    private static long revision(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), "/lodestar/v1/cluster")
                .get("revision")
                .asLong();
    }

    @Test
    void aListedClientGetsTheBetaAndOthersTheStableConfig() throws Exception {
        ServerProcess p = server();
        publish(p, "app", "stable");
        publishBeta(p, "app", "beta for me", SOMEONE_ELSE + "," + ME);

        Http.Response mine = read(p, "app");
        assertEquals(200, mine.status());
        assertEquals("beta for me", mine.body());
        assertEquals(
                md5("beta for me"), mine.headers().firstValue("Content-MD5").orElse(null));
        assertEquals("true", mine.headers().firstValue("isBeta").orElse(null));

        publishBeta(p, "app", "beta for someone else", SOMEONE_ELSE);
        Http.Response stable = read(p, "app");
        assertEquals("stable", stable.body(), "not listed: the stable config");
        assertEquals(md5("stable"), stable.headers().firstValue("Content-MD5").orElse(null));
        assertFalse(stable.headers().firstValue("isBeta").isPresent());

        HttpResponse<String> spoofed = client.send(
                HttpRequest.newBuilder(
                                URI.create("http://" + p.httpAddress() + CONFIGS + "?dataId=app&group=DEFAULT_GROUP"))
                        .header("X-Forwarded-For", SOMEONE_ELSE)
                        .header("X-Real-IP", SOMEONE_ELSE)
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("stable", spoofed.body(), "the socket's address decides, never a header");
    }

    @Test
    void aBetaWithoutAStableConfigIsA404ForClientsNotListed() throws Exception {
        ServerProcess p = server();
        publishBeta(p, "new", "only beta", SOMEONE_ELSE);
        assertEquals(404, read(p, "new").status());
        publishBeta(p, "new", "only beta", ME);
        assertEquals("only beta", read(p, "new").body());
    }

    @Test
    void queryBetaAnswersAsNacosAndStopBetaRemovesIt() throws Exception {
        ServerProcess p = server();
        publish(p, "q", "stable");
        JsonNode none = queryBeta(p, "q");
        assertEquals(200, none.get("code").asInt());
        assertEquals("query beta ok", none.get("message").asText());
        assertTrue(none.get("data").isNull(), none.toString());

        publishBeta(p, "q", "gray", ME + ", " + SOMEONE_ELSE);
        JsonNode data = queryBeta(p, "q").get("data");
        assertEquals("q", data.get("dataId").asText());
        assertEquals("DEFAULT_GROUP", data.get("group").asText());
        assertEquals("", data.get("tenant").asText());
        assertEquals("gray", data.get("content").asText());
        assertEquals(md5("gray"), data.get("md5").asText());
        assertEquals(ME + "," + SOMEONE_ELSE, data.get("betaIps").asText());

        Http.Response stop = Http.delete(p.httpAddress(), CONFIGS + "?beta=true&dataId=q&group=DEFAULT_GROUP");
        assertEquals(200, stop.status(), stop.body());
        JsonNode stopped = Http.JSON.readTree(stop.body());
        assertEquals(200, stopped.get("code").asInt());
        assertEquals("stop beta ok", stopped.get("message").asText());
        assertTrue(stopped.get("data").asBoolean());
        assertTrue(queryBeta(p, "q").get("data").isNull());
        Http.Response back = read(p, "q");
        assertEquals("stable", back.body(), "the stable config is untouched");
        assertFalse(back.headers().firstValue("isBeta").isPresent());

        long revision = revision(p);
        assertEquals(
                200,
                Http.delete(p.httpAddress(), CONFIGS + "?beta=true&dataId=q&group=DEFAULT_GROUP")
                        .status(),
                "stopping no beta is fine");
        assertEquals(revision, revision(p), "and writes nothing");
    }

    @Test
    void promotePublishesTheBetaAsTheStableConfigWithHistoryAndRemovesTheBeta() throws Exception {
        ServerProcess p = server();
        publish(p, "pr", "v1");
        publishBeta(p, "pr", "v2", SOMEONE_ELSE);
        Http.Response promoted =
                Http.postForm(p.httpAddress(), PROMOTE, params("dataId", "pr", "group", "DEFAULT_GROUP"));
        assertEquals(200, promoted.status(), promoted.body());
        assertEquals("true", promoted.body());

        Http.Response r = read(p, "pr");
        assertEquals("v2", r.body(), "everyone now gets the former beta");
        assertFalse(r.headers().firstValue("isBeta").isPresent());
        assertTrue(queryBeta(p, "pr").get("data").isNull(), "the beta is gone");

        JsonNode history = Http.json(
                p.httpAddress(),
                "/nacos/v1/cs/history?"
                        + Http.query(params("search", "accurate", "dataId", "pr", "group", "DEFAULT_GROUP")));
        assertEquals(2, history.get("totalCount").asInt());
        assertEquals("U         ", history.get("pageItems").get(0).get("opType").asText());
        JsonNode detail = Http.json(
                p.httpAddress(),
                "/nacos/v1/cs/history?"
                        + Http.query(params(
                                "nid",
                                history.get("pageItems").get(0).get("id").asText(),
                                "dataId",
                                "pr",
                                "group",
                                "DEFAULT_GROUP")));
        assertEquals("v1", detail.get("content").asText(), "the update keeps the content it replaced");

        long revision = revision(p);
        Http.Response again = Http.postForm(p.httpAddress(), PROMOTE, params("dataId", "pr", "group", "DEFAULT_GROUP"));
        assertEquals(400, again.status(), "no beta left to promote");
        assertTrue(again.body().contains("dataId"), again.body());
        assertEquals(revision, revision(p));

        publishBeta(p, "fresh", "first", ME);
        assertEquals(
                200,
                Http.postForm(p.httpAddress(), PROMOTE, params("dataId", "fresh"))
                        .status());
        assertEquals("first", read(p, "fresh").body());
        assertEquals(
                "I         ",
                Http.json(
                                p.httpAddress(),
                                "/nacos/v1/cs/history?"
                                        + Http.query(params(
                                                "search", "accurate", "dataId", "fresh", "group", "DEFAULT_GROUP")))
                        .get("pageItems")
                        .get(0)
                        .get("opType")
                        .asText());
    }

    @Test
    void aBetaListingThePollerWakesItsPollAndOneListingOthersDoesNot() throws Exception {
        ServerProcess p = server();
        publish(p, "lp", "stable");

        CompletableFuture<HttpResponse<String>> ignored = poll(p, "lp", md5("stable"), 3_000);
        Await.until(Duration.ofSeconds(10), "poll held", () -> held(p) == 1);
        long start = System.nanoTime();
        publishBeta(p, "lp", "not for me", SOMEONE_ELSE);
        HttpResponse<String> timedOut = ignored.get(60, TimeUnit.SECONDS);
        long heldMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(200, timedOut.statusCode());
        assertEquals("", timedOut.body(), "a beta for others is no change for this client");
        assertTrue(
                heldMs >= 5_000,
                "held until the timeout (at least Nacos's 10 s floor), answered after " + heldMs + " ms");

        CompletableFuture<HttpResponse<String>> woken = poll(p, "lp", md5("stable"), 30_000);
        Await.until(Duration.ofSeconds(10), "poll held", () -> held(p) == 1);
        publishBeta(p, "lp", "for me", ME);
        HttpResponse<String> answer = woken.get(10, TimeUnit.SECONDS);
        assertEquals(URLEncoder.encode("lp\u0002DEFAULT_GROUP\u0001", StandardCharsets.UTF_8) + "\n", answer.body());
        assertEquals("for me", read(p, "lp").body());

        CompletableFuture<HttpResponse<String>> onBeta = poll(p, "lp", md5("for me"), 30_000);
        Await.until(Duration.ofSeconds(10), "poll held", () -> held(p) == 1);
        assertEquals(
                200,
                Http.delete(p.httpAddress(), CONFIGS + "?beta=true&dataId=lp&group=DEFAULT_GROUP")
                        .status());
        assertTrue(
                onBeta.get(10, TimeUnit.SECONDS).body().startsWith("lp"), "stopping the beta wakes the listed client");
        assertEquals("stable", read(p, "lp").body());
    }

    record Case(String why, Map<String, String> form, String betaIps, String mentions) {}

    @Test
    void badBetaRequestsAreRejectedNamingTheFieldAndWriteNothing() throws Exception {
        ServerProcess p = server();
        publish(p, "ok", "stable");
        p.awaitSettled();
        String tooMany = IntStream.range(0, 257)
                .mapToObj(i -> "10.0." + (i / 256) + "." + (i % 256))
                .collect(Collectors.joining(","));
        Map<String, String> good = params("dataId", "ok", "group", "DEFAULT_GROUP", "content", "c");
        List<Case> cases = List.of(
                new Case("empty betaIps", good, "", "betaIps"),
                new Case("blank betaIps", good, "  ", "betaIps"),
                new Case("only commas", good, ",,", "betaIps"),
                new Case("trailing comma", good, "10.1.2.3,", "betaIps"),
                new Case("host name", good, "localhost", "betaIps"),
                new Case("host name among IPs", good, "10.1.2.3,example.com", "betaIps"),
                new Case("octet over 255", good, "10.1.2.256", "betaIps"),
                new Case("three octets", good, "10.1.2", "betaIps"),
                new Case("leading zero", good, "010.1.2.3", "betaIps"),
                new Case("bracketed IPv6", good, "[::1]", "betaIps"),
                new Case("IPv6 zone id", good, "fe80::1%eth0", "betaIps"),
                new Case("bad IPv6", good, "1::2::3", "betaIps"),
                new Case("IP with port", good, "10.1.2.3:8080", "betaIps"),
                new Case("CIDR", good, "10.1.2.0/24", "betaIps"),
                new Case("more than 256 IPs", good, tooMany, "betaIps"),
                new Case("missing dataId", params("group", "G", "content", "c"), ME, "dataId"),
                new Case("illegal dataId", params("dataId", "a/b", "group", "G", "content", "c"), ME, "dataId"),
                new Case("illegal group", params("dataId", "d", "group", "g g", "content", "c"), ME, "group"),
                new Case("missing content", params("dataId", "d", "group", "G"), ME, "content"),
                new Case("blank content", params("dataId", "d", "group", "G", "content", " "), ME, "content"),
                new Case(
                        "casMd5 with betaIps",
                        params("dataId", "ok", "group", "DEFAULT_GROUP", "content", "c", "casMd5", md5("stable")),
                        ME,
                        "casMd5"));
        long revision = revision(p);
        for (Case c : cases) {
            HttpResponse<String> r = publishBeta(p, c.form, c.betaIps);
            assertEquals(400, r.statusCode(), c.why + ": " + r.body());
            assertTrue(r.body().contains(c.mentions), c.why + " should name '" + c.mentions + "': " + r.body());
        }
        Map<String, String> bad = Map.of(
                "query beta without dataId", CONFIGS + "?beta=true&group=G",
                "query beta with illegal dataId", CONFIGS + "?beta=true&dataId=a%2Fb&group=G");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Http.Response r = Http.get(p.httpAddress(), e.getValue());
            assertEquals(400, r.status(), e.getKey() + ": " + r.body());
            assertTrue(r.body().contains("dataId"), e.getKey() + ": " + r.body());
        }
        Http.Response stop = Http.delete(p.httpAddress(), CONFIGS + "?beta=true&group=G");
        assertEquals(400, stop.status(), "stop beta without dataId: " + stop.body());
        assertTrue(stop.body().contains("dataId"), stop.body());
        Http.Response promote = Http.postForm(p.httpAddress(), PROMOTE, params("group", "G"));
        assertEquals(400, promote.status(), "promote without dataId: " + promote.body());
        assertTrue(promote.body().contains("dataId"), promote.body());
        Http.Response promoteNone = Http.postForm(p.httpAddress(), PROMOTE, params("dataId", "ok"));
        assertEquals(400, promoteNone.status(), "promote without a beta: " + promoteNone.body());

        p.awaitSettled();
        assertEquals(revision, revision(p), "no bad request wrote anything");
        assertEquals("stable", read(p, "ok").body());
        assertTrue(queryBeta(p, "ok").get("data").isNull());
    }
}
