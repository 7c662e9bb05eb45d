package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The web console as the server jar serves it, over plain HTTP (no browser: ConsoleBrowserIT drives
 * one where Chromium is installed): the page, the client-route fallback, the assets' types, the
 * redirect from Nacos's console path and the Content-Security-Policy, with auth on and no token.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleServingIT {
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void theConsoleIsServedWithoutATokenAndTheApiStillAsksForOne() throws Exception {
        ServerProcess p = cluster.standalone("console", "--auth", "on").start();
        p.awaitReady();
        String base = "http://" + p.httpAddress();

        HttpResponse<String> index = get(base + "/", "text/html");
        assertEquals(200, index.statusCode());
        assertTrue(index.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertTrue(index.body().contains("<div id=\"root\">"), index.body());
        String csp = index.headers().firstValue("Content-Security-Policy").orElse("");
        assertTrue(csp.contains("default-src 'self'") && csp.contains("script-src 'self'"), "the CSP: " + csp);
        assertTrue(!csp.contains("http:") && !csp.contains("https:"), "no other origin in the CSP: " + csp);

        HttpResponse<String> route = get(base + "/configs/detail?dataId=a&group=b", "text/html");
        assertEquals(200, route.statusCode(), "a client-side route a browser opens gets the page");
        assertEquals(index.body(), route.body());
        assertTrue(route.headers().firstValue("Content-Security-Policy").isPresent(), "the fallback has the CSP too");

        HttpResponse<String> api = get(base + "/nacos/v1/no-such-endpoint", "text/html");
        assertTrue(api.statusCode() == 404 || api.statusCode() == 405, "an API path never falls back to the page");
        assertTrue(!api.body().contains("<div id=\"root\">"));

        assertAsset(base, index.body(), "script[^>]+src=\"(/assets/[^\"]+\\.js)\"", "text/javascript");
        assertAsset(base, index.body(), "link[^>]+href=\"(/assets/[^\"]+\\.css)\"", "text/css");

        HttpResponse<String> nacos = get(base + "/nacos/", "text/html");
        assertEquals(302, nacos.statusCode());
        assertEquals("/", nacos.headers().firstValue("Location").orElse(""));

        HttpResponse<String> config = get(base + "/nacos/v1/cs/configs?dataId=a&group=b", "application/json");
        assertEquals(403, config.statusCode(), "the page is open, the data is not: " + config.body());
        HttpResponse<Void> head = CLIENT.send(
                HttpRequest.newBuilder(URI.create(base + "/nacos/v1/cs/configs?dataId=a&group=b"))
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        assertEquals(405, head.statusCode(), "a HEAD on an API path is not taken for a console file");
    }

    /**
     * A browser cannot set headers on a WebSocket and must not put its token in the URL: it offers
     * the token as a subprotocol beside {@code lodestar.push.v1}, which the server selects. The
     * console also subscribes to services there.
     */
    @Test
    void thePushChannelTakesABrowsersTokenFromAnOfferedSubprotocol() throws Exception {
        ServerProcess p = cluster.standalone("push", "--auth", "on").start();
        p.awaitReady();
        String token = login(p);
        URI push = URI.create("ws://" + p.httpAddress() + "/lodestar/v1/push");

        java.util.concurrent.LinkedBlockingQueue<String> received = new java.util.concurrent.LinkedBlockingQueue<>();
        java.net.http.WebSocket ws = CLIENT.newWebSocketBuilder()
                .subprotocols("lodestar.push.v1", "lodestar.bearer." + token)
                .buildAsync(push, new java.net.http.WebSocket.Listener() {
                    @Override
                    public java.util.concurrent.CompletionStage<?> onText(
                            java.net.http.WebSocket w, CharSequence data, boolean last) {
                        received.add(data.toString());
                        w.request(1);
                        return null;
                    }
                })
                .get(15, TimeUnit.SECONDS);
        try {
            assertEquals("lodestar.push.v1", ws.getSubprotocol(), "the server selects the console's protocol");
            ws.sendText("{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"a\",\"group\":\"b\"}]}", true);
            String first = received.poll(15, TimeUnit.SECONDS);
            assertTrue(first != null && first.contains("\"subscribed\""), "answered: " + first);

            // services too: a registration is announced on the channel (the console's instance list)
            ws.sendText(
                    "{\"type\":\"subscribe-services\",\"services\":[{\"namespaceId\":\"\","
                            + "\"groupName\":\"DEFAULT_GROUP\",\"serviceName\":\"web\"}]}",
                    true);
            String subscribed = received.poll(15, TimeUnit.SECONDS);
            assertTrue(subscribed != null && subscribed.contains("services-subscribed"), "answered: " + subscribed);
            Http.Response reg = Http.postForm(
                    p.httpAddress(),
                    "/nacos/v1/ns/instance",
                    Http.params("serviceName", "web", "ip", "10.0.0.1", "port", "80", "accessToken", token));
            assertEquals(200, reg.status(), reg.body());
            String changed = received.poll(15, TimeUnit.SECONDS);
            assertEquals(
                    Http.JSON.readTree("{\"type\":\"service-changed\",\"namespaceId\":\"public\","
                            + "\"groupName\":\"DEFAULT_GROUP\",\"serviceName\":\"web\"}"),
                    changed == null ? null : Http.JSON.readTree(changed));
        } finally {
            ws.abort();
        }

        java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> CLIENT.newWebSocketBuilder()
                        .subprotocols("lodestar.push.v1", "lodestar.bearer.not-a-token")
                        .buildAsync(push, new java.net.http.WebSocket.Listener() {})
                        .get(15, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof java.net.http.WebSocketHandshakeException, "refused: " + refused);
        assertEquals(
                403,
                ((java.net.http.WebSocketHandshakeException) refused.getCause())
                        .getResponse()
                        .statusCode(),
                "a bad token is refused");
    }

    static String login(ServerProcess p) throws Exception {
        java.nio.file.Path file = p.dataDir.resolve("initial-admin-password");
        String password = io.lodestar.kv.testing.Await.result(
                Duration.ofSeconds(30),
                "the admin's password file",
                () -> java.nio.file.Files.exists(file)
                        ? java.nio.file.Files.readString(file).trim()
                        : null);
        Http.Response r = Http.postForm(
                p.httpAddress(), "/nacos/v1/auth/users/login", Http.params("username", "nacos", "password", password));
        assertEquals(200, r.status(), r.body());
        return Http.JSON.readTree(r.body()).get("accessToken").asText();
    }

    private static void assertAsset(String base, String index, String regex, String type) throws Exception {
        Matcher m = Pattern.compile(regex).matcher(index);
        assertTrue(m.find(), "index.html names its asset (" + regex + "): " + index);
        HttpResponse<String> asset = get(base + m.group(1), "*/*");
        assertEquals(200, asset.statusCode(), m.group(1));
        assertTrue(
                asset.headers().firstValue("Content-Type").orElse("").startsWith(type),
                m.group(1) + " is served as " + asset.headers().firstValue("Content-Type"));
        assertTrue(asset.headers().firstValue("Cache-Control").orElse("").contains("immutable"));
        assertEquals(
                "nosniff", asset.headers().firstValue("X-Content-Type-Options").orElse(""));
    }

    private static HttpResponse<String> get(String url, String accept) throws IOException, InterruptedException {
        return CLIENT.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("Accept", accept)
                        .timeout(Duration.ofSeconds(15))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
