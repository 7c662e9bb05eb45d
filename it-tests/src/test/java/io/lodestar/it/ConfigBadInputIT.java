package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every bad request to /nacos/v1/cs/configs gets a 4xx naming the problem, and writes nothing. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigBadInputIT {
    private static final String PATH = "/nacos/v1/cs/configs";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    record Case(String why, Map<String, String> form, int status, String mentions) {}

    @Test
    void badPublishesAreRejectedWithAReasonAndWriteNothing() throws Exception {
        ServerProcess p = cluster.startStandalone("bad-input");
        String big = "x".repeat((10 << 20) + 1);
        List<Case> cases = List.of(
                new Case("missing dataId", params("group", "G", "content", "c"), 400, "dataId"),
                new Case("empty dataId", params("dataId", "", "group", "G", "content", "c"), 400, "dataId"),
                new Case("blank dataId", params("dataId", "  ", "group", "G", "content", "c"), 400, "dataId"),
                new Case(
                        "illegal char in dataId", params("dataId", "a/b", "group", "G", "content", "c"), 400, "dataId"),
                new Case(
                        "dataId too long",
                        params("dataId", "d".repeat(257), "group", "G", "content", "c"),
                        400,
                        "dataId"),
                new Case("illegal char in group", params("dataId", "d", "group", "g g", "content", "c"), 400, "group"),
                new Case(
                        "group too long",
                        params("dataId", "d", "group", "g".repeat(129), "content", "c"),
                        400,
                        "group"),
                new Case("missing content", params("dataId", "d", "group", "G"), 400, "content"),
                new Case("blank content", params("dataId", "d", "group", "G", "content", " \n"), 400, "content"),
                new Case("content over 10 MiB", params("dataId", "d", "group", "G", "content", big), 400, "content"),
                new Case(
                        "tenant with a control character",
                        params("dataId", "d", "group", "G", "content", "c", "tenant", "ns\u0001"),
                        400,
                        "tenant"),
                new Case(
                        "tenant too long",
                        params("dataId", "d", "group", "G", "content", "c", "tenant", "t".repeat(129)),
                        400,
                        "tenant"));
        long revision = revision(p);
        for (Case c : cases) {
            Http.Response r = Http.postForm(p.httpAddress(), PATH, c.form);
            assertEquals(c.status, r.status(), c.why + ": " + r.body());
            assertTrue(r.body().contains(c.mentions), c.why + " should name '" + c.mentions + "': " + r.body());
        }
        assertEquals(revision, revision(p), "no bad request wrote anything");

        // the documented limit is the one a user meets: 10 MiB of content publishes (its history entry too)
        String atTheLimit = "x".repeat(10 << 20);
        Http.Response r =
                Http.postForm(p.httpAddress(), PATH, params("dataId", "at-limit", "group", "G", "content", atTheLimit));
        assertEquals(200, r.status(), r.body());
        assertEquals(
                atTheLimit.length(),
                Http.get(p.httpAddress(), PATH + "?dataId=at-limit&group=G")
                        .body()
                        .length());
    }

    @Test
    void badReadsAndDeletesAndMethodsAreRejected() throws Exception {
        ServerProcess p = cluster.startStandalone("bad-input");
        long revision = revision(p);
        assertEquals(400, Http.get(p.httpAddress(), PATH + "?group=G").status(), "get without dataId");
        assertEquals(
                400, Http.get(p.httpAddress(), PATH + "?dataId=a%2Fb&group=G").status(), "get with illegal dataId");
        Http.Response del = Http.delete(p.httpAddress(), PATH + "?group=G");
        assertEquals(400, del.status(), "delete without dataId");
        assertTrue(del.body().contains("dataId"), del.body());

        HttpClient client = HttpClient.newHttpClient();
        HttpResponse<String> put = client.send(
                HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + PATH))
                        .PUT(HttpRequest.BodyPublishers.ofString("dataId=d&group=G&content=c"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, put.statusCode(), "PUT is not a config method");

        HttpResponse<String> huge = client.send(
                HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + PATH))
                        .POST(HttpRequest.BodyPublishers.ofString("dataId=d&group=G&content=" + "y".repeat(32 << 20)))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(413, huge.statusCode(), "a body over the request limit");
        assertEquals(revision, revision(p), "no bad request wrote anything");
        assertEquals(
                200,
                Http.get(p.httpAddress(), "/nacos/v1/console/health/liveness").status(),
                "still serving");
    }

    @Test
    void badDeliveryReportQueriesAreA400NamingTheField() throws Exception {
        ServerProcess p = cluster.startStandalone("bad-delivery");
        assertEquals(
                200,
                Http.postForm(p.httpAddress(), PATH, params("dataId", "d", "group", "G", "content", "c"))
                        .status());
        String md5 = "0123456789abcdef0123456789abcdef";
        List<String[]> cases = List.of(
                new String[] {"group=G", "dataId"},
                new String[] {"dataId=a%2Fb&group=G", "dataId"},
                new String[] {"dataId=d&group=g%20g", "group"},
                new String[] {"dataId=d&group=G&md5=xyz", "md5"},
                new String[] {"dataId=d&group=G&md5=" + md5.toUpperCase(java.util.Locale.ROOT), "md5"},
                new String[] {"dataId=d&group=G&nid=0", "nid"},
                new String[] {"dataId=d&group=G&nid=-5", "nid"},
                new String[] {"dataId=d&group=G&nid=x", "nid"},
                new String[] {"dataId=d&group=G&nid=1&md5=" + md5, "nid"},
                new String[] {"dataId=d&group=G&tenant=a&namespaceId=b", "tenant"});
        for (String[] c : cases) {
            Http.Response r = Http.get(p.httpAddress(), "/lodestar/v1/cs/delivery?" + c[0]);
            assertEquals(400, r.status(), c[0] + ": " + r.body());
            assertTrue(r.body().contains(c[1]), c[0] + " should name '" + c[1] + "': " + r.body());
        }
        assertEquals(
                404,
                Http.get(p.httpAddress(), "/lodestar/v1/cs/delivery?dataId=none&group=G")
                        .status());
        assertEquals(
                404,
                Http.get(p.httpAddress(), "/lodestar/v1/cs/delivery?dataId=d&group=G&nid=999999999")
                        .status());
        assertEquals(
                200,
                Http.get(p.httpAddress(), "/lodestar/v1/cs/delivery?dataId=d&group=G")
                        .status());
    }

    static long revision(ServerProcess p) throws Exception {
        return Http.json(p.httpAddress(), "/lodestar/v1/cluster")
                .get("revision")
                .asLong();
    }
}
