package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.TestSettings;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** A real standalone server with {@code --auth on}, its generated admin logged in, and HTTP helpers for the tests. */
public final class AuthServer implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    public final Path dir;
    final LodestarServer server;
    public final int port;
    public final int grpcPort;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final String adminPassword;
    public final String token;

    private AuthServer(Path dir) throws Exception {
        this.dir = dir;
        this.port = FreePorts.next();
        this.grpcPort = FreePorts.next();
        this.server = LodestarServer.start(TestSettings.standalone(dir, port, grpcPort, true));
        Await.until(Duration.ofSeconds(30), "ready (the probe needs no token)", () -> {
            try {
                return get("/nacos/v1/console/health/readiness", Map.of()).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        Path file = dir.resolve("initial-admin-password");
        Await.until(Duration.ofSeconds(30), "the admin's password file", () -> Files.exists(file));
        this.adminPassword = Files.readString(file).trim();
        this.token = login("nacos", adminPassword).get("accessToken").asText();
    }

    public static AuthServer start(Path dir) throws Exception {
        return new AuthServer(dir);
    }

    /** The header that carries {@code token}. */
    public static Map<String, String> bearer(String token) {
        return Map.of("Authorization", "Bearer " + token);
    }

    public Map<String, String> admin() {
        return bearer(token);
    }

    public HttpResponse<String> send(String method, String pathAndQuery, String form, Map<String, String> headers)
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

    HttpResponse<String> get(String pathAndQuery, Map<String, String> headers) throws Exception {
        return send("GET", pathAndQuery, null, headers);
    }

    HttpResponse<String> loginResponse(String username, String password) throws Exception {
        return send(
                "POST",
                Auth.LOGIN_PATH + "?username=" + URLEncoder.encode(username, StandardCharsets.UTF_8),
                "password=" + URLEncoder.encode(password, StandardCharsets.UTF_8),
                Map.of());
    }

    public JsonNode login(String username, String password) throws Exception {
        HttpResponse<String> r = loginResponse(username, password);
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body());
    }

    /** Creates {@code username} as the admin and logs it in: its token. */
    public String user(String username, String password) throws Exception {
        HttpResponse<String> made =
                send("POST", "/nacos/v1/auth/users", "username=" + username + "&password=" + password, admin());
        assertEquals(200, made.statusCode(), made.body());
        return login(username, password).get("accessToken").asText();
    }

    @Override
    public void close() {
        server.close();
    }
}
