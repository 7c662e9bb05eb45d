package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.auth.AccessRules;
import io.lodestar.api.auth.AuthServer;
import io.lodestar.api.grpc.RawGrpcClient;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of malformed requests, seeded, to every HTTP route and every gRPC request type of a
 * real node with authentication on, sent as its admin so that they reach the handlers: none may be
 * answered with a server error, and the node must serve a publish and a read afterwards. The
 * parameters are the API's own names with hostile values (empty, huge, nested JSON where a string
 * belongs, numbers out of range, control characters, Nacos's {@code @@} separators in the wrong
 * place). A failure lists each request that failed, with the seed and its index, to replay it.
 *
 * <p>{@code -Dlodestar.fuzz.seed=N} and {@code -Dlodestar.fuzz.requests=N} change the run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class MalformedRequestsFuzzTest {
    private static final long SEED = Long.getLong("lodestar.fuzz.seed", 20_261_206L);
    private static final int HTTP_REQUESTS = Integer.getInteger("lodestar.fuzz.requests", 8_000);
    private static final int GRPC_REQUESTS = HTTP_REQUESTS / 4;

    /**
     * Operations left out: they change the cluster's membership or leadership, or the admin whose
     * token the run uses; a malformed one is covered by their own tests, and a well-formed one the
     * fuzzer stumbled on would end the run, not find a bug.
     */
    private static final List<String> LEFT_OUT = List.of(
            "POST /lodestar/v1/cluster/members",
            "DELETE /lodestar/v1/cluster/members",
            "POST /lodestar/v1/cluster/leader",
            "PUT /nacos/v1/auth/users",
            "DELETE /nacos/v1/auth/users",
            "POST /nacos/v2/core/loader/reloadCurrent",
            "POST /nacos/v2/core/loader/reloadClient");

    private static final String[] NAMES = {
        "dataId",
        "group",
        "tenant",
        "namespaceId",
        "namespace",
        "content",
        "type",
        "desc",
        "config_tags",
        "appName",
        "betaIps",
        "casMd5",
        "tag",
        "search",
        "show",
        "nid",
        "pageNo",
        "pageSize",
        "beta",
        "encryptedDataKey",
        "serviceName",
        "groupName",
        "clusterName",
        "clusters",
        "ip",
        "port",
        "weight",
        "healthy",
        "enabled",
        "ephemeral",
        "metadata",
        "beat",
        "healthOnly",
        "protectThreshold",
        "selector",
        "healthChecker",
        "checkPort",
        "useInstancePort4Check",
        "instances",
        "udpPort",
        "clientIP",
        "namespaceName",
        "namespaceDesc",
        "customNamespaceId",
        "username",
        "password",
        "newPassword",
        "role",
        "resource",
        "action",
        "accessToken",
        "Listening-Configs",
        "sinceRevision",
        "policy",
        "count",
        "redirectAddress",
        "connectionId",
        "address",
        "groupedName",
        "subscribe",
        "entry",
        "value",
        "debug",
        "cluster"
    };

    private static final String[] VALUES = {
        "",
        " ",
        "public",
        "PUBLIC",
        "team-a",
        "DEFAULT_GROUP",
        "a",
        "x".repeat(300),
        "y".repeat(70_000),
        "0",
        "-1",
        "1",
        "65536",
        "2147483648",
        "-9223372036854775809",
        "1e309",
        "NaN",
        "Infinity",
        "0.5",
        "-0.0",
        "true",
        "false",
        "TRUE",
        "null",
        "{",
        "}",
        "[",
        "[1,2]",
        "{\"a\":\"b\"}",
        "{\"a\":{\"b\":1}}",
        "{\"a\":[1]}",
        "\"str\"",
        "@@",
        "a@@b",
        "a@@b@@c",
        "@@svc",
        "grp@@",
        ":",
        "a:b:c",
        "127.0.0.1",
        "::1",
        "[::1]",
        "999.1.1.1",
        "169.254.169.254",
        "localhost",
        "../../etc/passwd",
        "a/b",
        "%",
        "%zz",
        "%00",
        "\u0000",
        "\u0001\u0002",
        "\r\nX-Injected: 1",
        "é",
        "\uD83D\uDE00",
        "\uD800",
        "<script>",
        "' OR 1=1 --",
        "*",
        "a,b,,c",
        ",",
        "dataId^2Group^2tenant^1",
        "\u0002\u0001",
        "md5",
        "d41d8cd98f00b204e9800998ecf8427e",
        "CLUSTER",
        "DEFAULT",
        "HTTP",
        "TCP",
        "{\"type\":\"HTTP\",\"path\":\"/x\"}",
        "{\"type\":\"nope\"}",
        "[{\"ip\":\"127.0.0.1\",\"port\":1}]",
        "[{}]",
        "[null]",
        "yaml",
        "properties",
        "json",
        "xml",
        "text",
        "r",
        "w",
        "rw",
        "x",
        "ROLE_ADMIN",
        "nacos",
        "all",
        "listen",
        "config",
        "naming"
    };

    @TempDir
    static Path dir;

    AuthServer server;

    @BeforeAll
    void start() throws Exception {
        server = AuthServer.start(dir);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void noMalformedHttpRequestGetsAServerError() throws Exception {
        List<String> operations = AccessRules.declared().stream()
                .filter(op -> op.contains(" /") && !op.startsWith("WS ") && !LEFT_OUT.contains(op))
                .sorted()
                .toList();
        Random random = new Random(SEED);
        List<String> failures = new ArrayList<>();
        Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        for (int i = 0; i < HTTP_REQUESTS; i++) {
            String op = operations.get(random.nextInt(operations.size()));
            String method = op.substring(0, op.indexOf(' '));
            String path = pathWithParams(op.substring(op.indexOf(' ') + 1), random);
            String params = params(random);
            boolean inBody = !method.equals("GET") && random.nextBoolean();
            String pathAndQuery = inBody || params.isEmpty() ? path : path + "?" + params;
            HttpResponse<String> answer = server.send(method, pathAndQuery, inBody ? params : null, server.admin());
            statuses.merge(answer.statusCode(), 1, Integer::sum);
            if (answer.statusCode() >= 500) {
                failures.add("#" + i + " " + method + " " + pathAndQuery + (inBody ? " body " + params : "") + " -> "
                        + answer.statusCode() + " " + cut(answer.body()));
            }
        }
        // the run means something only if it got past the checks to the parsers and the handlers
        assertTrue(
                statuses.getOrDefault(200, 0) > HTTP_REQUESTS / 10
                        && statuses.getOrDefault(400, 0) > HTTP_REQUESTS / 10,
                "too few requests reached a handler: statuses " + statuses);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " server errors (seed " + SEED + "):\n"
                        + String.join("\n", failures.subList(0, Math.min(50, failures.size()))));
        stillServes();
    }

    @Test
    void noMalformedGrpcRequestGetsAServerError() throws Exception {
        List<String> types = AccessRules.declared().stream()
                .filter(op -> !op.contains(" "))
                .sorted()
                .toList();
        Random random = new Random(SEED + 1);
        List<String> failures = new ArrayList<>();
        Map<Integer, Integer> codes = new java.util.TreeMap<>(); // errorCode: 0 when served
        try (RawGrpcClient c = new RawGrpcClient(server.grpcPort).setUp()) {
            assertTrue(c.awaitPushed("SetupAckRequest", 5) != null, "set up");
            for (int i = 0; i < GRPC_REQUESTS; i++) {
                String type = types.get(random.nextInt(types.size()));
                String json = json(random);
                RawGrpcClient.Message answer;
                try {
                    answer = c.request(RawGrpcClient.payload(type, json, Map.of("accessToken", server.token)));
                } catch (RuntimeException e) {
                    failures.add("#" + i + " " + type + " " + cut(json) + " -> the call failed: " + e);
                    continue;
                }
                codes.merge(answer.body().path("errorCode").asInt(0), 1, Integer::sum);
                String message = answer.body().path("message").asText("");
                if (message.startsWith("internal error ")) {
                    failures.add("#" + i + " " + type + " " + cut(json) + " -> "
                            + cut(answer.body().toString()));
                }
            }
        }
        assertTrue(
                codes.getOrDefault(0, 0) > GRPC_REQUESTS / 10 && codes.size() > 1,
                "too few requests reached a handler: error codes " + codes);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " server errors (seed " + (SEED + 1) + "):\n"
                        + String.join("\n", failures.subList(0, Math.min(50, failures.size()))));
        stillServes();
    }

    private void stillServes() throws Exception {
        HttpResponse<String> published =
                server.send("POST", "/nacos/v1/cs/configs", "dataId=after-fuzz&group=G&content=still", server.admin());
        assertEquals(200, published.statusCode(), published.body());
        HttpResponse<String> read =
                server.send("GET", "/nacos/v1/cs/configs?dataId=after-fuzz&group=G", null, server.admin());
        assertEquals("still", read.body());
    }

    /** One to six parameters, names and values from the tables, now and then a name twice or a random one. */
    private static String params(Random random) {
        StringBuilder s = new StringBuilder();
        int count = 1 + random.nextInt(6);
        for (int i = 0; i < count; i++) {
            String name = random.nextInt(20) == 0 ? randomText(random) : NAMES[random.nextInt(NAMES.length)];
            String value = random.nextInt(10) == 0 ? randomText(random) : VALUES[random.nextInt(VALUES.length)];
            if (s.length() > 0) {
                s.append('&');
            }
            s.append(encode(name)).append('=').append(encode(value));
        }
        return s.toString();
    }

    /** The route's path with each {@code {param}} made a hostile value, percent-encoded. */
    private static String pathWithParams(String template, Random random) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{[^}]+}").matcher(template);
        StringBuilder s = new StringBuilder();
        while (m.find()) {
            String value = random.nextInt(10) == 0 ? randomText(random) : VALUES[random.nextInt(VALUES.length)];
            m.appendReplacement(s, java.util.regex.Matcher.quoteReplacement(encode(value)));
        }
        return m.appendTail(s).toString();
    }

    /** A JSON object of the API's names with hostile values, or now and then not JSON at all. */
    private static String json(Random random) {
        switch (random.nextInt(12)) {
            case 0:
                return VALUES[random.nextInt(VALUES.length)];
            case 1:
                return "";
            default:
                break;
        }
        StringBuilder s = new StringBuilder("{");
        int count = 1 + random.nextInt(6);
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                s.append(',');
            }
            s.append(quote(NAMES[random.nextInt(NAMES.length)])).append(':');
            String v = VALUES[random.nextInt(VALUES.length)];
            switch (random.nextInt(4)) {
                case 0 -> s.append(quote(v));
                case 1 -> s.append(v.matches("-?[0-9.eE]+|true|false|null|\\{.*}|\\[.*]") ? v : quote(v));
                case 2 ->
                    s.append("{\"")
                            .append(NAMES[random.nextInt(NAMES.length)])
                            .append("\":")
                            .append(quote(v))
                            .append('}');
                default -> s.append('[').append(quote(v)).append(']');
            }
        }
        return s.append('}').toString();
    }

    private static String randomText(Random random) {
        char[] c = new char[random.nextInt(40)];
        for (int i = 0; i < c.length; i++) {
            c[i] = (char) random.nextInt(random.nextBoolean() ? 128 : 0x3000);
        }
        return new String(c);
    }

    private static String quote(String v) {
        StringBuilder s = new StringBuilder("\"");
        for (char ch : v.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                s.append('\\').append(ch);
            } else if (ch < 0x20) {
                s.append(String.format("\\u%04x", (int) ch));
            } else {
                s.append(ch);
            }
        }
        return s.append('"').toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String cut(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }
}
