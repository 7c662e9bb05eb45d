package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code /nacos/v1/console/namespaces} against a real server process, with the bodies Nacos 1.4/2.x answer. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NamespaceIT {
    private static final String PATH = "/nacos/v1/console/namespaces";
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void listDetailCreateAndEditAnswerNacosBodies() throws Exception {
        ServerProcess p = cluster.startStandalone("ns");
        String a = p.httpAddress();

        assertEquals(
                json("{\"code\":200,\"message\":null,\"data\":[" + publicEntry("public", 0) + "]}"),
                Http.json(a, PATH),
                "a fresh server lists only the public namespace");

        assertEquals("true", create(a, "dev", "Development", "for devs").body());
        Http.Response dup = create(a, "dev", "Other", "other");
        assertEquals(200, dup.status());
        assertEquals("false", dup.body(), "a duplicate id answers false");
        assertEquals(
                "true",
                Http.postForm(
                                a,
                                CONFIGS,
                                params(
                                        "dataId",
                                        "app.yaml",
                                        "group",
                                        "DEFAULT_GROUP",
                                        "content",
                                        "port: 1",
                                        "tenant",
                                        "dev"))
                        .body());
        assertEquals(
                "true",
                Http.postForm(a, CONFIGS, params("dataId", "root.yaml", "group", "DEFAULT_GROUP", "content", "x"))
                        .body());

        assertEquals(
                json("{\"code\":200,\"message\":null,\"data\":[" + publicEntry("public", 1) + ","
                        + "{\"namespace\":\"dev\",\"namespaceShowName\":\"Development\",\"namespaceDesc\":\"for devs\","
                        + "\"quota\":200,\"configCount\":1,\"serviceCount\":0,\"type\":2}]}"),
                Http.json(a, PATH),
                "the config published with tenant=dev counts in dev only (the duplicate changed nothing)");

        assertEquals(
                json("{\"namespace\":\"dev\",\"namespaceShowName\":\"Development\",\"namespaceDesc\":\"for devs\","
                        + "\"quota\":200,\"configCount\":1,\"serviceCount\":0,\"type\":2}"),
                Http.json(a, PATH + "?show=all&namespaceId=dev"));
        assertEquals(
                json(publicEntry("Public", 1)),
                Http.json(a, PATH + "?show=all&namespaceId="),
                "the public detail (Nacos capitalises its name there)");
        Http.Response unknown = Http.get(a, PATH + "?show=all&namespaceId=nope");
        assertEquals(404, unknown.status(), unknown.body());
        assertTrue(unknown.body().contains("nope"), unknown.body());

        assertEquals(
                "true",
                Http.get(a, PATH + "?checkNamespaceIdExist=true&customNamespaceId=dev")
                        .body());
        assertEquals(
                "false",
                Http.get(a, PATH + "?checkNamespaceIdExist=true&customNamespaceId=nope")
                        .body());

        assertEquals(
                "true",
                send(a, "PUT", PATH, params("namespace", "dev", "namespaceShowName", "Dev", "namespaceDesc", "renamed"))
                        .body());
        JsonNode detail = Http.json(a, PATH + "?show=all&namespaceId=dev");
        assertEquals("Dev", detail.get("namespaceShowName").asText());
        assertEquals("renamed", detail.get("namespaceDesc").asText());
        Http.Response editUnknown = send(a, "PUT", PATH, params("namespace", "nope", "namespaceShowName", "X"));
        assertEquals(200, editUnknown.status());
        assertEquals("false", editUnknown.body(), "editing an unknown id changes nothing");
        assertEquals(404, Http.get(a, PATH + "?show=all&namespaceId=nope").status(), "and does not create it");

        assertEquals("true", create(a, "", "Generated", null).body());
        JsonNode data = Http.json(a, PATH).get("data");
        assertEquals(3, data.size());
        assertTrue(data.get(2).get("namespace").asText().matches("[0-9a-f-]{36}"), "an empty id gets a UUID: " + data);
    }

    @Test
    void aNamespaceIsDeletedOnlyOnceItsConfigsAreGone() throws Exception {
        ServerProcess p = cluster.startStandalone("ns-delete");
        String a = p.httpAddress();
        assertEquals("true", create(a, "prod", "Production", null).body());
        assertEquals(
                "true",
                Http.postForm(
                                a,
                                CONFIGS,
                                params("dataId", "db.yaml", "group", "G", "content", "url: x", "tenant", "prod"))
                        .body());

        Http.Response refused = Http.delete(a, PATH + "?namespaceId=prod");
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.body().contains("1 config"), refused.body());
        assertEquals(200, Http.get(a, PATH + "?show=all&namespaceId=prod").status(), "still there");

        assertEquals(
                "true",
                Http.delete(a, CONFIGS + "?dataId=db.yaml&group=G&tenant=prod").body());
        Http.Response deleted = Http.delete(a, PATH + "?namespaceId=prod");
        assertEquals(200, deleted.status(), deleted.body());
        assertEquals("true", deleted.body());
        assertEquals(404, Http.get(a, PATH + "?show=all&namespaceId=prod").status());
        assertEquals(1, Http.json(a, PATH).get("data").size(), "only public is left");
        assertEquals("true", Http.delete(a, PATH + "?namespaceId=prod").body(), "an unknown id answers true");
        assertEquals("true", create(a, "prod", "Again", null).body(), "the id is free again");
    }

    record Case(
            String why, String method, String pathAndQuery, Map<String, String> form, int status, String mentions) {}

    @Test
    void badRequestsAreRejectedWithAReasonAndWriteNothing() throws Exception {
        ServerProcess p = cluster.startStandalone("ns-bad");
        String a = p.httpAddress();
        assertEquals("true", create(a, "full", "Full", null).body());
        assertEquals(
                "true",
                Http.postForm(a, CONFIGS, params("dataId", "d", "group", "G", "content", "c", "tenant", "full"))
                        .body());
        Map<String, String> none = Map.of();
        List<Case> cases = List.of(
                new Case(
                        "space in customNamespaceId",
                        "POST",
                        PATH,
                        params("customNamespaceId", "a b", "namespaceName", "n"),
                        400,
                        "customNamespaceId"),
                new Case(
                        "dot in customNamespaceId",
                        "POST",
                        PATH,
                        params("customNamespaceId", "a.b", "namespaceName", "n"),
                        400,
                        "customNamespaceId"),
                new Case(
                        "slash in customNamespaceId",
                        "POST",
                        PATH,
                        params("customNamespaceId", "a/b", "namespaceName", "n"),
                        400,
                        "customNamespaceId"),
                new Case(
                        "customNamespaceId of 129",
                        "POST",
                        PATH,
                        params("customNamespaceId", "i".repeat(129), "namespaceName", "n"),
                        400,
                        "customNamespaceId"),
                new Case(
                        "reserved customNamespaceId",
                        "POST",
                        PATH,
                        params("customNamespaceId", "public", "namespaceName", "n"),
                        400,
                        "customNamespaceId"),
                new Case(
                        "missing namespaceName", "POST", PATH, params("customNamespaceId", "ok"), 400, "namespaceName"),
                new Case(
                        "blank namespaceName",
                        "POST",
                        PATH,
                        params("customNamespaceId", "ok", "namespaceName", "  "),
                        400,
                        "namespaceName"),
                new Case(
                        "'@' in namespaceName",
                        "POST",
                        PATH,
                        params("customNamespaceId", "ok", "namespaceName", "a@b"),
                        400,
                        "namespaceName"),
                new Case(
                        "namespaceName of 129",
                        "POST",
                        PATH,
                        params("customNamespaceId", "ok", "namespaceName", "n".repeat(129)),
                        400,
                        "namespaceName"),
                new Case(
                        "namespaceDesc of 257",
                        "POST",
                        PATH,
                        params("customNamespaceId", "ok", "namespaceName", "n", "namespaceDesc", "d".repeat(257)),
                        400,
                        "namespaceDesc"),
                new Case("delete without namespaceId", "DELETE", PATH, none, 400, "namespaceId"),
                new Case("delete of the public namespace", "DELETE", PATH + "?namespaceId=", none, 400, "public"),
                new Case("delete of 'public'", "DELETE", PATH + "?namespaceId=public", none, 400, "public"),
                new Case(
                        "delete of a namespace holding configs",
                        "DELETE",
                        PATH + "?namespaceId=full",
                        none,
                        409,
                        "1 config"),
                new Case(
                        "edit of the public namespace",
                        "PUT",
                        PATH,
                        params("namespace", "", "namespaceShowName", "P"),
                        400,
                        "public"),
                new Case("edit without namespace", "PUT", PATH, params("namespaceShowName", "P"), 400, "namespace"),
                new Case(
                        "edit with a blank name",
                        "PUT",
                        PATH,
                        params("namespace", "full", "namespaceShowName", " "),
                        400,
                        "namespaceShowName"),
                new Case("detail without namespaceId", "GET", PATH + "?show=all", none, 400, "namespaceId"),
                new Case(
                        "wrong method", "PATCH", PATH, params("namespace", "full", "namespaceShowName", "P"), 405, ""));
        long revision = ConfigBadInputIT.revision(p);
        for (Case c : cases) {
            Http.Response r = send(a, c.method, c.pathAndQuery, c.form);
            assertEquals(c.status, r.status(), c.why + ": " + r.body());
            assertTrue(r.body().contains(c.mentions), c.why + " should name '" + c.mentions + "': " + r.body());
        }
        assertEquals(revision, ConfigBadInputIT.revision(p), "no bad request wrote anything");
        assertEquals(
                "Full",
                Http.json(a, PATH + "?show=all&namespaceId=full")
                        .get("namespaceShowName")
                        .asText());
        assertEquals(2, Http.json(a, PATH).get("data").size(), "nothing was created");
    }

    private static String publicEntry(String showName, int configCount) {
        return "{\"namespace\":\"\",\"namespaceShowName\":\"" + showName + "\",\"namespaceDesc\":\"Public Namespace\","
                + "\"quota\":200,\"configCount\":" + configCount + ",\"serviceCount\":0,\"type\":0}";
    }

    private static JsonNode json(String text) throws IOException {
        return Http.JSON.readTree(text);
    }

    private static Http.Response create(String address, String id, String name, String desc) throws IOException {
        Map<String, String> form = params("customNamespaceId", id, "namespaceName", name);
        if (desc != null) {
            form.put("namespaceDesc", desc);
        }
        return Http.postForm(address, PATH, form);
    }

    /** Any method, with the parameters as a form body (none for an empty map). */
    private static Http.Response send(String address, String method, String pathAndQuery, Map<String, String> form)
            throws IOException, InterruptedException {
        String body = form.entrySet().stream()
                .map(e -> Http.query(Map.of(e.getKey(), e.getValue())))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + address + pathAndQuery))
                .timeout(java.time.Duration.ofSeconds(15));
        if (form.isEmpty()) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/x-www-form-urlencoded")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        HttpResponse<String> r = CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Http.Response(r.statusCode(), r.body(), r.headers());
    }
}
