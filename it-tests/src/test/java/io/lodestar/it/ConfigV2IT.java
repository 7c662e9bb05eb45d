package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Nacos 2.x config open API, {@code /nacos/v2/cs/config}: Result bodies with Nacos's error codes. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigV2IT {
    private static final String PATH = "/nacos/v2/cs/config";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private static JsonNode body(Http.Response r) throws Exception {
        return Http.JSON.readTree(r.body());
    }

    private static void assertResult(Http.Response r, int status, int code, String message) throws Exception {
        assertEquals(status, r.status(), r.body());
        JsonNode b = body(r);
        assertEquals(code, b.get("code").asInt(), r.body());
        assertEquals(message, b.get("message").asText(), r.body());
    }

    @Test
    void publishGetDeleteRoundTrip() throws Exception {
        ServerProcess p = cluster.startStandalone("v2");
        Http.Response published = Http.postForm(
                p.httpAddress(),
                PATH,
                params(
                        "dataId",
                        "svc.yaml",
                        "group",
                        "G",
                        "namespaceId",
                        "ns2",
                        "content",
                        "a: 1",
                        "type",
                        "yaml",
                        "desc",
                        "d",
                        "appName",
                        "svc",
                        "configTags",
                        "x,y"));
        assertResult(published, 200, 0, "success");
        assertTrue(body(published).get("data").asBoolean(), published.body());

        Http.Response got = Http.get(p.httpAddress(), PATH + "?dataId=svc.yaml&group=G&namespaceId=ns2");
        assertResult(got, 200, 0, "success");
        assertEquals("a: 1", body(got).get("data").asText());
        assertEquals(
                ConfigHistoryIT.md5("a: 1"),
                got.headers().firstValue("Content-MD5").orElse(""));

        // the same config through v1: same store, same fields
        Http.Response v1 = Http.get(p.httpAddress(), "/nacos/v1/cs/configs?dataId=svc.yaml&group=G&tenant=ns2");
        assertEquals("a: 1", v1.body());
        assertEquals("yaml", v1.headers().firstValue("Config-Type").orElse(""));
        JsonNode all = Http.json(p.httpAddress(), "/nacos/v1/cs/configs?show=all&dataId=svc.yaml&group=G&tenant=ns2");
        assertEquals("d", all.get("desc").asText());
        assertEquals("svc", all.get("appName").asText());
        assertEquals("x,y", all.get("configTags").asText());

        // "public" names the public namespace, as in Nacos 2
        assertResult(
                Http.postForm(
                        p.httpAddress(),
                        PATH,
                        params(
                                "dataId",
                                "pub",
                                "group",
                                "G",
                                "namespaceId",
                                "public",
                                "content",
                                "p",
                                "type",
                                "no-such-type")),
                200,
                0,
                "success");
        assertEquals(
                "p",
                Http.get(p.httpAddress(), "/nacos/v1/cs/configs?dataId=pub&group=G")
                        .body());
        assertEquals(
                "text",
                Http.get(p.httpAddress(), "/nacos/v1/cs/configs?dataId=pub&group=G")
                        .headers()
                        .firstValue("Config-Type")
                        .orElse(""),
                "an unknown type is stored as text");

        Http.Response deleted = Http.delete(p.httpAddress(), PATH + "?dataId=svc.yaml&group=G&namespaceId=ns2");
        assertResult(deleted, 200, 0, "success");
        assertTrue(body(deleted).get("data").asBoolean());
        Http.Response gone = Http.get(p.httpAddress(), PATH + "?dataId=svc.yaml&group=G&namespaceId=ns2");
        assertResult(gone, 404, 20004, "resource not found");
        assertEquals("config data not exist", body(gone).get("data").asText());

        Http.Response again = Http.delete(p.httpAddress(), PATH + "?dataId=svc.yaml&group=G&namespaceId=ns2");
        assertResult(again, 200, 0, "success");
    }

    record Case(String why, String method, Map<String, String> params, int code, String mentions) {}

    @Test
    void badRequestsGetV2ErrorBodiesAndWriteNothing() throws Exception {
        ServerProcess p = cluster.startStandalone("v2-bad");
        String big = "x".repeat((10 << 20) + 1);
        List<Case> cases = List.of(
                new Case("publish without dataId", "POST", params("group", "G", "content", "c"), 10000, "dataId"),
                new Case(
                        "publish with blank dataId",
                        "POST",
                        params("dataId", " ", "group", "G", "content", "c"),
                        10000,
                        "dataId"),
                new Case("publish without group", "POST", params("dataId", "d", "content", "c"), 10000, "group"),
                new Case("publish without content", "POST", params("dataId", "d", "group", "G"), 10000, "content"),
                new Case(
                        "publish with illegal dataId",
                        "POST",
                        params("dataId", "a/b", "group", "G", "content", "c"),
                        20002,
                        "dataId"),
                new Case(
                        "publish with illegal group",
                        "POST",
                        params("dataId", "d", "group", "g g", "content", "c"),
                        20002,
                        "group"),
                new Case(
                        "publish over 10 MiB",
                        "POST",
                        params("dataId", "d", "group", "G", "content", big),
                        20002,
                        "content"),
                new Case(
                        "publish a tagged config",
                        "POST",
                        params("dataId", "d", "group", "G", "content", "c", "tag", "t1"),
                        20002,
                        "tag"),
                new Case("get without dataId", "GET", params("group", "G"), 10000, "dataId"),
                new Case("get without group", "GET", params("dataId", "d"), 10000, "group"),
                new Case("get with empty dataId", "GET", params("dataId", "", "group", "G"), 20002, "dataId"),
                new Case("get with illegal group", "GET", params("dataId", "d", "group", "a/b"), 20002, "group"),
                new Case("delete without dataId", "DELETE", params("group", "G"), 10000, "dataId"),
                new Case(
                        "delete with illegal dataId",
                        "DELETE",
                        params("dataId", "a b", "group", "G"),
                        20002,
                        "dataId"));
        long revision = ConfigBadInputIT.revision(p);
        for (Case c : cases) {
            Http.Response r = switch (c.method) {
                case "POST" -> Http.postForm(p.httpAddress(), PATH, c.params);
                case "GET" -> Http.get(p.httpAddress(), PATH + "?" + Http.query(c.params));
                default -> Http.delete(p.httpAddress(), PATH + "?" + Http.query(c.params));
            };
            assertEquals(400, r.status(), c.why + ": " + r.body());
            JsonNode b = body(r);
            assertEquals(c.code, b.get("code").asInt(), c.why + ": " + r.body());
            assertEquals(
                    c.code == 10000 ? "parameter missing" : "parameter validate error",
                    b.get("message").asText(),
                    c.why);
            assertTrue(
                    b.get("data").asText().contains(c.mentions),
                    c.why + " should name '" + c.mentions + "': " + r.body());
        }
        assertEquals(revision, ConfigBadInputIT.revision(p), "no bad request wrote anything");

        // the v1 API keeps its plain-text errors
        Http.Response v1 = Http.postForm(p.httpAddress(), "/nacos/v1/cs/configs", params("group", "G", "content", "c"));
        assertEquals(400, v1.status());
        assertTrue(v1.body().startsWith("caused: dataId"), v1.body());
    }
}
