package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Who may do what, on a real server with {@code --auth on}: every declared route refuses a caller
 * without a token, roles and permissions grant reads and writes by namespace, group and name, a
 * listener hears only what it may read, and cluster administration is its own permission.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationTest {
    @TempDir
    static Path dir;

    AuthServer s;

    @BeforeAll
    void start() throws Exception {
        s = AuthServer.start(dir);
        ok(s.send("POST", "/nacos/v1/console/namespaces", "customNamespaceId=team-a&namespaceName=A", s.admin()));
        s.user("grantee", "grantee-password"); // has the role the bad grants name
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=grantees&username=grantee", s.admin()));
    }

    @AfterAll
    void stop() {
        s.close();
    }

    static Stream<String> httpOperations() {
        return AccessRules.declared().stream()
                .filter(op -> op.contains(" /") && !op.startsWith("WS "))
                .sorted();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("httpOperations")
    void everyDeclaredRouteIsServedAndRefusesACallerWithoutAToken(String operation) throws Exception {
        String method = operation.substring(0, operation.indexOf(' '));
        // a path parameter ({namespaceId}) is asked with a value
        String path = operation.substring(operation.indexOf(' ') + 1).replaceAll("\\{[^}/]+}", "p1");
        HttpResponse<String> r = s.send(method, path, null, Map.of());
        if (AccessRules.of(operation) instanceof Access.Open) {
            assertTrue(r.statusCode() != 403 && r.statusCode() != 404, operation + ": " + r.statusCode());
        } else {
            // a declared operation that no route serves would answer 404 here
            assertEquals(403, r.statusCode(), operation + ": " + r.body());
            assertTrue(r.body().contains("no access token"), operation + ": " + r.body());
        }
    }

    @Test
    void aReadGrantOnANamespaceReadsItOnly() throws Exception {
        String token = s.user("reader", "reader-password");
        Map<String, String> reader = AuthServer.bearer(token);
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=readers&username=reader", s.admin()));
        ok(s.send("POST", "/nacos/v1/auth/permissions", "role=readers&resource=team-a&action=r", s.admin()));
        ok(s.send("POST", "/nacos/v1/cs/configs", "tenant=team-a&dataId=db&group=G&content=v1", s.admin()));

        assertEquals(
                "v1",
                s.get("/nacos/v1/cs/configs?tenant=team-a&dataId=db&group=G", reader)
                        .body());
        assertEquals(
                200,
                s.get("/nacos/v1/cs/configs?tenant=team-a&search=blur&dataId=&group=&pageNo=1&pageSize=10", reader)
                        .statusCode(),
                "a search across the namespace");
        assertEquals(
                200,
                s.get("/nacos/v1/ns/instance/list?namespaceId=team-a&serviceName=orders", reader)
                        .statusCode());
        refused(
                s.send("POST", "/nacos/v1/cs/configs", "tenant=team-a&dataId=db&group=G&content=v2", reader),
                "write team-a:G:config/db");
        refused(s.get("/nacos/v1/cs/configs?dataId=db&group=G", reader), "read public:G:config/db");
        refused(
                s.send(
                        "POST",
                        "/nacos/v1/ns/instance",
                        "namespaceId=team-a&serviceName=orders&ip=127.0.0.1&port=8080",
                        reader),
                "write team-a");
        refused(s.get("/nacos/v1/cs/configs?tenant=team-a&export=true", reader), "read transfer:team-a");
        refused(s.get("/lodestar/v1/cluster", reader), "read cluster");
        refused(s.get("/nacos/v1/auth/users", reader), "it takes the admin");
        assertEquals(
                "v1",
                s.get("/nacos/v1/cs/configs?tenant=team-a&dataId=db&group=G", s.admin())
                        .body(),
                "nothing was written");

        // a listener hears only keys it may read: one it may not refuses the poll
        String mine = listening("db", "G", "team-a");
        assertEquals(
                200,
                s.send("POST", "/nacos/v1/cs/configs/listener", "Listening-Configs=" + mine, reader)
                        .statusCode());
        refused(
                s.send(
                        "POST",
                        "/nacos/v1/cs/configs/listener",
                        "Listening-Configs=" + mine + listening("db", "G", ""),
                        reader),
                "read public:G:config/db");
    }

    @Test
    void aPushSubscriberHearsOnlyKeysItMayRead() throws Exception {
        String token = s.user("subscriber", "subscriber-password");
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=subscribers&username=subscriber", s.admin()));
        ok(s.send("POST", "/nacos/v1/auth/permissions", "role=subscribers&resource=team-a&action=r", s.admin()));
        java.util.concurrent.BlockingQueue<String> heard = new java.util.concurrent.LinkedBlockingQueue<>();
        java.net.http.WebSocket ws = s.http.newWebSocketBuilder()
                .buildAsync(
                        java.net.URI.create("ws://127.0.0.1:" + s.port + "/lodestar/v1/push?accessToken=" + token),
                        new java.net.http.WebSocket.Listener() {
                            @Override
                            public java.util.concurrent.CompletionStage<?> onText(
                                    java.net.http.WebSocket socket, CharSequence data, boolean last) {
                                heard.add(data.toString());
                                socket.request(1);
                                return null;
                            }
                        })
                .get(10, java.util.concurrent.TimeUnit.SECONDS);
        try {
            ws.sendText(
                            "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"db\",\"group\":\"G\",\"tenant\":\"team-a\"},"
                                    + "{\"dataId\":\"db\",\"group\":\"G\",\"tenant\":\"\"}]}",
                            true)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            String refused = heard.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(
                    refused != null
                            && refused.contains("\"error\"")
                            && refused.contains("may not read public:G:config/db"),
                    refused);
            ws.sendText(
                            "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"db\",\"group\":\"G\",\"tenant\":\"team-a\"}]}",
                            true)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            String subscribed = heard.poll(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(subscribed != null && subscribed.contains("\"subscribed\""), subscribed);
        } finally {
            ws.abort();
        }
    }

    @Test
    void aWriteGrantOnAGroupAndNamePatternWritesOnlyWhatItMatches() throws Exception {
        Map<String, String> writer = AuthServer.bearer(s.user("writer", "writer-password"));
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=app-writers&username=writer", s.admin()));
        ok(s.send(
                "POST",
                "/nacos/v1/auth/permissions",
                "role=app-writers&resource=" + enc("team-a:G1:config/app-*") + "&action=rw",
                s.admin()));
        ok(s.send("POST", "/nacos/v1/cs/configs", "tenant=team-a&dataId=app-1&group=G1&content=x", writer));
        assertEquals(
                "x",
                s.get("/nacos/v1/cs/configs?tenant=team-a&dataId=app-1&group=G1", writer)
                        .body());
        refused(
                s.send("POST", "/nacos/v1/cs/configs", "tenant=team-a&dataId=app-1&group=G2&content=x", writer),
                "write team-a:G2:config/app-1");
        refused(
                s.send("POST", "/nacos/v1/cs/configs", "tenant=team-a&dataId=db&group=G1&content=x", writer),
                "write team-a:G1:config/db");
        refused(
                s.get("/nacos/v1/cs/configs?tenant=team-a&search=blur&dataId=&group=G1&pageNo=1&pageSize=10", writer),
                "read team-a:G1:config/*");
        refused(
                s.send(
                        "POST",
                        "/nacos/v1/ns/instance",
                        "namespaceId=team-a&groupName=G1&serviceName=app-1&ip=127.0.0.1&port=1",
                        writer),
                "write team-a:G1:naming/app-1");

        // history names who logged in as the author, never the request's srcUser
        ok(s.send(
                "POST",
                "/nacos/v2/cs/config",
                "namespaceId=team-a&dataId=app-2&group=G1&content=z&srcUser=mallory",
                writer));
        String history = s.get("/nacos/v1/cs/history?search=accurate&tenant=team-a&dataId=app-2&group=G1", s.admin())
                .body();
        assertTrue(history.contains("\"srcUser\":\"writer\"") && !history.contains("mallory"), history);

        // the role's deletion takes its permissions with it
        ok(s.send("DELETE", "/nacos/v1/auth/roles?role=app-writers", null, s.admin()));
        refused(
                s.send("POST", "/nacos/v1/cs/configs", "tenant=team-a&dataId=app-1&group=G1&content=y", writer),
                "write");
        assertEquals(
                "{\"totalCount\":0",
                s.get("/nacos/v1/auth/permissions?role=app-writers", s.admin())
                        .body()
                        .substring(0, 15));
    }

    @Test
    void theAuditLogRecordsEachWriteAndEachRefusalWithoutContent() throws Exception {
        Map<String, String> auditor = AuthServer.bearer(s.user("audited", "audited-password"));
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=audited-writers&username=audited", s.admin()));
        ok(s.send("POST", "/nacos/v1/auth/permissions", "role=audited-writers&resource=team-a&action=rw", s.admin()));
        ok(s.send(
                "POST",
                "/nacos/v1/cs/configs",
                "tenant=team-a&dataId=audited&group=G&content=never-in-the-audit-log",
                auditor));
        ok(s.send(
                "POST",
                "/nacos/v2/cs/config",
                "namespaceId=team-a&dataId=audited-v2&group=G&content=never-in-the-audit-log",
                auditor));
        refused(
                s.send("DELETE", "/nacos/v1/cs/configs?dataId=audited&group=G", null, auditor),
                "write public:G:config/audited");
        assertEquals(
                403,
                s.get("/nacos/v1/cs/configs?dataId=audited&group=G", Map.of()).statusCode());

        Path log = dir.resolve("audit").resolve("audit.log");
        String[] expected = {
            "\"principal\":\"audited\",\"source\":\"127.0.0.1\",\"entryPoint\":\"http\",\"operation\":\"POST /nacos/v1/cs/configs\",\"resources\":[\"team-a:G:config/audited\"],\"outcome\":200",
            "\"operation\":\"POST /nacos/v2/cs/config\",\"resources\":[\"team-a:G:config/audited-v2\"],\"outcome\":200",
            "\"principal\":\"audited\",\"source\":\"127.0.0.1\",\"entryPoint\":\"http\",\"operation\":\"DELETE /nacos/v1/cs/configs\",\"resources\":[\"public:G:config/audited\"],\"outcome\":403",
            // refused before it was read: a request without a token names nothing yet
            "\"source\":\"127.0.0.1\",\"entryPoint\":\"http\",\"operation\":\"GET /nacos/v1/cs/configs\",\"resources\":[],\"outcome\":403",
        };
        io.lodestar.kv.testing.Await.until(
                "the audit lines",
                () -> java.util.Arrays.stream(expected).allMatch(auditText(log)::contains),
                () -> auditText(log));
        String text = java.nio.file.Files.readString(log);
        assertTrue(!text.contains("never-in-the-audit-log") && !text.contains("audited-password"), text);
        assertTrue(text.lines().allMatch(l -> l.startsWith("{\"time\":\"")), "one JSON object per line:\n" + text);
    }

    @Test
    void clusterAdministrationIsItsOwnPermission() throws Exception {
        Map<String, String> operator = AuthServer.bearer(s.user("operator", "operator-password"));
        refused(s.get("/lodestar/v1/cluster", operator), "read cluster");
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=operators&username=operator", s.admin()));
        ok(s.send("POST", "/nacos/v1/auth/permissions", "role=operators&resource=cluster&action=r", s.admin()));
        assertEquals(200, s.get("/lodestar/v1/cluster", operator).statusCode());
        refused(s.send("POST", "/lodestar/v1/cluster/leader", "", operator), "write cluster");
        refused(s.get("/nacos/v1/cs/configs?dataId=db&group=G", operator), "read public:G:config/db");
    }

    @Test
    void aDeletedUsersRolesGoWithIt() throws Exception {
        s.user("leaver", "leaver-password");
        ok(s.send("POST", "/nacos/v1/auth/roles", "role=leavers&username=leaver", s.admin()));
        ok(s.send("DELETE", "/nacos/v1/auth/users?username=leaver", null, s.admin()));
        Map<String, String> again = AuthServer.bearer(s.user("leaver", "leaver-password"));
        assertTrue(
                s.get("/nacos/v1/auth/roles?username=leaver", s.admin()).body().contains("\"totalCount\":0"));
        refused(s.get("/nacos/v1/cs/configs?dataId=db&group=G", again), "read");
    }

    /** A bad request to the roles and permissions routes: what is sent, and what the 4xx must name. */
    record Bad(String method, String pathAndQuery, String form, int status, String names) {
        @Override
        public String toString() {
            return method + " " + pathAndQuery + " " + form + " -> " + status + " " + names;
        }
    }

    static List<Bad> badGrants() {
        String roles = "/nacos/v1/auth/roles";
        String permissions = "/nacos/v1/auth/permissions";
        return List.of(
                new Bad("POST", roles, "username=nacos", 400, "role"),
                new Bad("POST", roles, "role=r1", 400, "username"),
                new Bad("POST", roles, "role=ROLE_ADMIN&username=nacos", 400, "ROLE_ADMIN"),
                new Bad("POST", roles, "role=bad%20role&username=nacos", 400, "illegal character"),
                new Bad("POST", roles, "role=r1&username=nobody", 404, "nobody"),
                new Bad("DELETE", roles + "?role=never-given", null, 404, "never-given"),
                new Bad("POST", permissions, "role=nobody-has-it&resource=team-a&action=r", 404, "nobody-has-it"),
                new Bad("POST", permissions, "role=grantees&resource=team-a&action=x", 400, "action"),
                new Bad("POST", permissions, "role=grantees&resource=team-a", 400, "action"),
                new Bad("POST", permissions, "role=grantees&action=r", 400, "resource"),
                new Bad("POST", permissions, "role=grantees&resource=a:b&action=r", 400, "resource"),
                new Bad("POST", permissions, "role=grantees&resource=a:b:secrets/x&action=r", 400, "resource"),
                new Bad(
                        "DELETE",
                        permissions + "?role=grantees&resource=nowhere&action=r",
                        null,
                        404,
                        "no such permission"),
                new Bad("GET", permissions + "?pageNo=0", null, 400, "pageNo"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badGrants")
    void aBadGrantIsRefusedNamingWhatIsWrong(Bad bad) throws Exception {
        HttpResponse<String> r = s.send(bad.method(), bad.pathAndQuery(), bad.form(), s.admin());
        assertEquals(bad.status(), r.statusCode(), r.body());
        assertTrue(r.body().contains(bad.names()), r.body());
    }

    private static String auditText(Path log) {
        try {
            return java.nio.file.Files.exists(log) ? java.nio.file.Files.readString(log) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String listening(String dataId, String group, String tenant) {
        String entry =
                dataId + '\u0002' + group + '\u0002' + "" + (tenant.isEmpty() ? "" : "\u0002" + tenant) + '\u0001';
        return enc(enc(entry));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void ok(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
    }

    private static void refused(HttpResponse<String> r, String what) {
        assertEquals(403, r.statusCode(), r.body());
        assertTrue(r.body().contains(what), "the refusal names " + what + ": " + r.body());
    }
}
