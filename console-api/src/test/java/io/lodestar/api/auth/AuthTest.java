package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jsonwebtoken.Jwts;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
    private static final ObjectMapper JSON = AuthServer.JSON;
    private static final String CONFIG = "/nacos/v1/cs/configs?dataId=guarded&group=G";

    @TempDir
    static Path dir;

    AuthServer s;
    String adminPassword;
    String token;
    int port;
    java.net.http.HttpClient http;

    @BeforeAll
    void start() throws Exception {
        s = AuthServer.start(dir);
        adminPassword = s.adminPassword;
        token = s.token;
        port = s.port;
        http = s.http;
    }

    @AfterAll
    void stop() {
        s.close();
    }

    private HttpResponse<String> send(String method, String pathAndQuery, String form, Map<String, String> headers)
            throws Exception {
        return s.send(method, pathAndQuery, form, headers);
    }

    private HttpResponse<String> get(String pathAndQuery, Map<String, String> headers) throws Exception {
        return s.get(pathAndQuery, headers);
    }

    private HttpResponse<String> loginResponse(String username, String password) throws Exception {
        return s.loginResponse(username, password);
    }

    private JsonNode login(String username, String password) throws Exception {
        return s.login(username, password);
    }

    @Test
    void theAdminsPasswordFileIsReadableByItsOwnerOnly() throws Exception {
        Path file = dir.resolve("initial-admin-password");
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(file));
        assertTrue(adminPassword.length() >= 20, "a long random password");
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
                new Attempt("a write", "DELETE", CONFIG, Map.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attempts")
    void aRequestWithoutAValidTokenIsRefused(Attempt a) throws Exception {
        HttpResponse<String> r = send(a.method(), a.pathAndQuery(), null, a.headers());
        assertEquals(403, r.statusCode(), a.why() + ": " + r.body());
        assertFalse(r.body().contains("\"accessToken\""), r.body());
    }

    /** No route serves HEAD: 405 for anyone, never answered as the GET would be. */
    @Test
    void aHeadOnAnApiPathIsNotAllowed() throws Exception {
        HttpResponse<String> anonymous = send("HEAD", CONFIG, null, Map.of());
        assertEquals(405, anonymous.statusCode(), anonymous.body());
        HttpResponse<String> withToken = send("HEAD", CONFIG + "&accessToken=" + token, null, Map.of());
        assertEquals(405, withToken.statusCode(), withToken.body());
    }

    /**
     * An API path no route serves is refused as Javalin's prefer405over404 answers it (405 while a
     * route of another method could serve the path, else 404), never with the console's page.
     */
    @Test
    void anApiPathNoRouteServesIsNeitherServedNorTheConsolesPage() throws Exception {
        HttpResponse<String> r = send("GET", "/nacos/v9/no-such-endpoint", null, Map.of());
        assertTrue(r.statusCode() == 404 || r.statusCode() == 405, r.statusCode() + " " + r.body());
        assertFalse(r.body().contains("<div id=\"root\">"), r.body());
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
        for (int i = 1; i < LoginThrottle.MAX_FAILURES_PER_NAME_AND_ADDRESS; i++) {
            loginResponse("throttled", "wrong-password");
        }
        HttpResponse<String> throttled = loginResponse("throttled", "wrong-password");
        assertEquals(403, throttled.statusCode());
        assertTrue(throttled.body().contains("too many failed logins"), throttled.body());
    }

    @Test
    void theAdminManagesUsersAndAUserOnlyItsOwnPassword() throws Exception {
        Map<String, String> admin = Map.of("Authorization", "Bearer " + token);
        String users = "/nacos/v1/auth/users";
        assertEquals(
                403,
                send("POST", users, "username=bob&password=bob-password", Map.of())
                        .statusCode());
        assertEquals(
                200,
                send("POST", users, "username=bob&password=bob-password", admin).statusCode());
        HttpResponse<String> again = send("POST", users, "username=bob&password=bob-password", admin);
        assertEquals(400, again.statusCode(), "an existing name: " + again.body());
        assertTrue(get(users, admin).body().contains("\"username\":\"bob\""));
        assertFalse(get(users, admin).body().contains("$2"), "no hash is ever answered");

        String bobToken = login("bob", "bob-password").get("accessToken").asText();
        Map<String, String> bob = Map.of("Authorization", "Bearer " + bobToken);
        String anyUsers = "/nacos/v1/console/namespaces"; // a route any user may call
        assertEquals(200, get(anyUsers, bob).statusCode(), "a plain user's token is accepted");
        HttpResponse<String> listed = get(users, bob);
        assertEquals(403, listed.statusCode(), "listing users takes the admin: " + listed.body());
        assertEquals(403, send("DELETE", users + "?username=nacos", null, bob).statusCode());
        assertEquals(
                403,
                send("PUT", users, "username=nacos&newPassword=taken-over!", bob)
                        .statusCode(),
                "not another user's password");
        assertEquals(
                200,
                send("PUT", users, "username=bob&newPassword=bob-password-2", bob)
                        .statusCode());
        assertEquals(403, get(anyUsers, bob).statusCode(), "the token from before the change is retired");

        String bobAgain = login("bob", "bob-password-2").get("accessToken").asText();
        assertEquals(400, send("DELETE", users + "?username=nacos", null, admin).statusCode(), "not the admin");
        assertEquals(200, send("DELETE", users + "?username=bob", null, admin).statusCode());
        assertEquals(
                403,
                get(anyUsers, Map.of("Authorization", "Bearer " + bobAgain)).statusCode(),
                "a deleted user's token");
        assertEquals(404, send("DELETE", users + "?username=bob", null, admin).statusCode());
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
