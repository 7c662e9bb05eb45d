package io.lodestar.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** A small HTTP client for the tests: form posts and JSON, with a request timeout (15 s unless given). */
final class Http {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(15);
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    record Response(int status, String body, java.net.http.HttpHeaders headers) {}

    private Http() {}

    static Response get(String address, String pathAndQuery) throws IOException {
        return get(address, pathAndQuery, DEFAULT_TIMEOUT);
    }

    static Response get(String address, String pathAndQuery, Duration timeout) throws IOException {
        return send(HttpRequest.newBuilder(uri(address, pathAndQuery)).GET(), timeout);
    }

    static Response delete(String address, String pathAndQuery) throws IOException {
        return send(HttpRequest.newBuilder(uri(address, pathAndQuery)).DELETE(), DEFAULT_TIMEOUT);
    }

    static Response postForm(String address, String path, Map<String, String> form) throws IOException {
        return postForm(address, path, form, DEFAULT_TIMEOUT);
    }

    static Response postForm(String address, String path, Map<String, String> form, Duration timeout)
            throws IOException {
        return send(
                HttpRequest.newBuilder(uri(address, path))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(form(form))),
                timeout);
    }

    /** Any method, with {@code form} (may be empty) as a form body. */
    static Response send(String address, String method, String pathAndQuery, Map<String, String> form)
            throws IOException {
        return send(
                HttpRequest.newBuilder(uri(address, pathAndQuery))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .method(method, HttpRequest.BodyPublishers.ofString(form(form))),
                DEFAULT_TIMEOUT);
    }

    static JsonNode json(String address, String path) throws IOException {
        Response r = get(address, path);
        if (r.status != 200) {
            throw new IOException(path + " answered " + r.status + ": " + r.body);
        }
        return JSON.readTree(r.body);
    }

    static Map<String, String> params(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static String query(Map<String, String> params) {
        return form(params);
    }

    private static String form(Map<String, String> form) {
        return form.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static URI uri(String address, String pathAndQuery) {
        return URI.create("http://" + address + pathAndQuery);
    }

    private static Response send(HttpRequest.Builder builder, Duration timeout) throws IOException {
        try {
            HttpResponse<String> r =
                    CLIENT.send(builder.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
            return new Response(r.statusCode(), r.body(), r.headers());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
