package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jsonwebtoken.Jwts;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.cluster.FreePorts;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Authentication on a real server with {@code --auth on}: the generated admin, logging in, the
 * token on every HTTP entry point, and a table of ways in that must each fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONFIG = "/nacos/v1/cs/configs?dataId=guarded&group=G";

    @TempDir
    static Path dir;

    LodestarServer server;
    int port;
    String adminPassword;
    String token;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void start() throws Exception {
        port = FreePorts.next();
        server = LodestarServer.start(TestSettings.standalone(dir, port, -1, true));
        Await.until(Duration.ofSeconds(30), "ready (the probe needs no token)", () -> {
            try {
                return get("/nacos/v1/console/health/readiness", Map.of()).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        Path file = dir.resolve("initial-admin-password");
        Await.until(Duration.ofSeconds(30), "the admin's password file", () -> Files.exists(file));
        assertEquals(
                PosixFilePermissions.fromString("rw-------"),
                Files.getPosixFilePermissions(file),
                "readable by its owner only");
        adminPassword = Files.readString(file).trim();
        assertTrue(adminPassword.length() >= 20, "a long random password");
        token = login("nacos", adminPassword).get("accessToken").asText();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private HttpResponse<String> send(String method, String pathAndQuery, String form, Map<String, String> headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(10));
        headers.forEach(b::header);
        if (form != null) {
            b.header("Content-Type", "application/x-www-form-urlencoded");
        }
        b.method(
                method, form == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(form));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String pathAndQuery, Map<String, String> headers) throws Exception {
        return send("GET", pathAndQuery, null, headers);
    }

    private HttpResponse<String> loginResponse(String username, String password) throws Exception {
        return send(
                "POST",
                Auth.LOGIN_PATH + "?username=" + URLEncoder.encode(username, StandardCharsets.UTF_8),
                "password=" + URLEncoder.encode(password, StandardCharsets.UTF_8),
                Map.of());
    }

    private JsonNode login(String username, String password) throws Exception {
        HttpResponse<String> r = loginResponse(username, password);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    @Test
    void theGeneratedAdminLogsInAsNacossClientsExpect() throws Exception {
        HttpResponse<String> r = loginResponse("nacos", adminPassword);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        assertEquals(Tokens.TTL.toSeconds(), body.get("tokenTtl").asLong());
        assertTrue(body.get("globalAdmin").asBoolean());
        assertEquals("nacos", body.get("username").asText());
        assertEquals(
                "Bearer " + body.get("accessToken").asText(),
                r.headers().firstValue("Authorization").orElse(""));
        // the older clients' path, and the one nacos-client 3.x tries first
        for (String path : List.of(Auth.OLD_LOGIN_PATH, Auth.V3_LOGIN_PATH)) {
            HttpResponse<String> other = send(
                    "POST",
                    path,
                    "username=nacos&password=" + URLEncoder.encode(adminPassword, StandardCharsets.UTF_8),
                    Map.of());
            assertEquals(200, other.statusCode(), path + ": " + other.body());
        }
    }

    @Test
    void aTokenOpensEveryRouteAsAParameterOrABearerHeader() throws Exception {
        assertEquals(
                200,
                send("POST", "/nacos/v1/cs/configs", "dataId=guarded&group=G&content=v&accessToken=" + token, Map.of())
                        .statusCode());
        assertEquals("v", get(CONFIG + "&accessToken=" + token, Map.of()).body());
        assertEquals(
                "v", get(CONFIG, Map.of("Authorization", "Bearer " + token)).body());
        assertEquals(
                200,
                get("/nacos/v1/ns/instance/list?serviceName=s", Map.of("Authorization", "Bearer " + token))
                        .statusCode());
    }

    @Test
    void onlyLoginProbesAndMetricsAreOpen() throws Exception {
        assertEquals(200, get("/nacos/v1/console/health/liveness", Map.of()).statusCode());
        assertEquals(200, get("/nacos/v1/console/health/readiness", Map.of()).statusCode());
        assertEquals(200, get("/metrics", Map.of()).statusCode());
        HttpResponse<String> refused = get(CONFIG, Map.of());
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().contains("no access token"), refused.body());
    }

    /** A way in that must fail: what is sent, and why someone would try it. */
    record Attempt(String why, String method, String pathAndQuery, Map<String, String> headers) {
        @Override
        public String toString() {
            return why;
        }
    }

    static List<Attempt> attempts() {
        String nacosDefaultKey = "SecretKey012345678901234567890123456789012345678901234567890123456789";
        String nacosDocsKey = "VGhpc0lzTXlDdXN0b21TZWNyZXRLZXkwMTIzNDU2Nzg=";
        Date later = new Date(System.currentTimeMillis() + 3_600_000);
        String signedRaw = Jwts.builder()
                .subject("nacos")
                .claim("gen", 1)
                .expiration(later)
                .signWith(new SecretKeySpec(nacosDefaultKey.getBytes(StandardCharsets.UTF_8), "HmacSHA256"))
                .compact();
        String signedDecoded = Jwts.builder()
                .subject("nacos")
                .claim("gen", 1)
                .expiration(later)
                .signWith(new SecretKeySpec(Base64.getDecoder().decode(nacosDocsKey), "HmacSHA256"))
                .compact();
        String unsigned = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes())
                + "."
                + Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString(
                                ("{\"sub\":\"nacos\",\"gen\":1,\"exp\":" + (later.getTime() / 1000) + "}").getBytes())
                + ".";
        return List.of(
                new Attempt("no token", "GET", CONFIG, Map.of()),
                new Attempt(
                        "Nacos's User-Agent bypass (CVE-2021-29441)",
                        "GET",
                        CONFIG,
                        Map.of("User-Agent", "Nacos-Server")),
                new Attempt("a forged server identity", "GET", CONFIG, Map.of("serverIdentity", "security")),
                new Attempt(
                        "a token signed with Nacos's default key",
                        "GET",
                        CONFIG + "&accessToken=" + signedRaw,
                        Map.of()),
                new Attempt(
                        "a token signed with the key in Nacos's docs, base64-decoded",
                        "GET",
                        CONFIG,
                        Map.of("Authorization", "Bearer " + signedDecoded)),
                new Attempt("an unsigned token (alg none)", "GET", CONFIG + "&accessToken=" + unsigned, Map.of()),
                new Attempt("garbage as a token", "GET", CONFIG + "&accessToken=garbage", Map.of()),
                new Attempt("a trailing slash", "GET", "/nacos/v1/cs/configs/?dataId=guarded&group=G", Map.of()),
                new Attempt("an admin route", "GET", "/lodestar/v1/cluster", Map.of()),
                new Attempt("a write", "DELETE", CONFIG, Map.of()),
                new Attempt("HEAD", "HEAD", CONFIG, Map.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attempts")
    void aRequestWithoutAValidTokenIsRefused(Attempt a) throws Exception {
        HttpResponse<String> r = send(a.method(), a.pathAndQuery(), null, a.headers());
        assertEquals(403, r.statusCode(), a.why() + ": " + r.body());
        assertFalse(r.body().contains("\"accessToken\""), r.body());
    }

    @Test
    void thePushChannelTakesOnlyAConnectionWithAToken() throws Exception {
        var refused = http.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + port + "/lodestar/v1/push"), new WebSocket.Listener() {});
        var e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, refused::get);
        assertTrue(e.getCause() instanceof WebSocketHandshakeException, String.valueOf(e.getCause()));
        assertEquals(
                403, ((WebSocketHandshakeException) e.getCause()).getResponse().statusCode());
        WebSocket open = http.newWebSocketBuilder()
                .buildAsync(
                        URI.create("ws://127.0.0.1:" + port + "/lodestar/v1/push?accessToken=" + token),
                        new WebSocket.Listener() {})
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        open.abort();
    }

    @Test
    void aFailedLoginDoesNotSayWhatWasWrongAndRepeatedFailuresAreThrottled() throws Exception {
        HttpResponse<String> unknown = loginResponse("nobody", "whatever-password");
        HttpResponse<String> wrong = loginResponse("throttled", "wrong-password");
        assertEquals(403, unknown.statusCode());
        assertEquals(403, wrong.statusCode());
        assertEquals(unknown.body(), wrong.body(), "the same answer for an unknown user and a wrong password");
        for (int i = 1; i < LoginThrottle.MAX_FAILURES; i++) {
            loginResponse("throttled", "wrong-password");
        }
        HttpResponse<String> throttled = loginResponse("throttled", "wrong-password");
        assertEquals(403, throttled.statusCode());
        assertTrue(throttled.body().contains("too many failed logins"), throttled.body());
    }

    @Test
    void aLoginWithoutNameOrPasswordIsA400NamingIt() throws Exception {
        HttpResponse<String> noName = send("POST", Auth.LOGIN_PATH, "password=x", Map.of());
        assertEquals(400, noName.statusCode());
        assertTrue(noName.body().contains("username"), noName.body());
        HttpResponse<String> noPassword = send("POST", Auth.LOGIN_PATH + "?username=nacos", null, Map.of());
        assertEquals(400, noPassword.statusCode());
        assertTrue(noPassword.body().contains("password"), noPassword.body());
    }
}
