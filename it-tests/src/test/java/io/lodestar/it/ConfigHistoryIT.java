package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Config history as Nacos serves it, compare-and-publish, and rollback. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigHistoryIT {
    private static final String HISTORY = "/nacos/v1/cs/history";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    static String md5(String s) throws Exception {
        return String.format(
                "%032x",
                new BigInteger(1, MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8))));
    }

    static JsonNode history(ServerProcess p, String dataId, String... extra) throws Exception {
        Map<String, String> q = params("search", "accurate", "dataId", dataId, "group", "DEFAULT_GROUP");
        for (int i = 0; i < extra.length; i += 2) {
            q.put(extra[i], extra[i + 1]);
        }
        return Http.json(p.httpAddress(), HISTORY + "?" + Http.query(q));
    }

    @Test
    void everyPublishAndDeleteIsKeptNewestFirstWithTheReplacedContent() throws Exception {
        ServerProcess p = cluster.startStandalone("hist");
        assertEquals(200, StandaloneServerIT.publish(p, "h", "v1").status());
        assertEquals(200, StandaloneServerIT.publish(p, "h", "v2").status());
        assertEquals(200, StandaloneServerIT.publish(p, "h", "v3").status());
        assertEquals(
                200,
                Http.delete(p.httpAddress(), "/nacos/v1/cs/configs?dataId=h&group=DEFAULT_GROUP")
                        .status());

        JsonNode page = history(p, "h");
        assertEquals(4, page.get("totalCount").asInt());
        JsonNode items = page.get("pageItems");
        List<String> ops = new ArrayList<>();
        long previousId = Long.MAX_VALUE;
        for (JsonNode item : items) {
            ops.add(item.get("opType").asText());
            assertTrue(item.get("content").isNull(), "the list leaves content out");
            long id = Long.parseLong(item.get("id").asText());
            assertTrue(id < previousId, "newest first, ids increasing with time");
            previousId = id;
        }
        assertEquals(List.of("D         ", "U         ", "U         ", "I         "), ops);

        List<String> contents = new ArrayList<>();
        for (JsonNode item : items) {
            JsonNode detail = Http.json(
                    p.httpAddress(),
                    HISTORY + "?"
                            + Http.query(
                                    params("nid", item.get("id").asText(), "dataId", "h", "group", "DEFAULT_GROUP")));
            contents.add(detail.get("content").asText());
            assertEquals(md5(detail.get("content").asText()), detail.get("md5").asText());
        }
        // delete keeps what it removed, an update what it replaced, the insert what it inserted
        assertEquals(List.of("v3", "v2", "v1", "v1"), contents);

        String newest = items.get(0).get("id").asText();
        JsonNode before = Http.json(
                p.httpAddress(),
                HISTORY + "/previous?" + Http.query(params("id", newest, "dataId", "h", "group", "DEFAULT_GROUP")));
        assertEquals(items.get(1).get("id").asText(), before.get("id").asText());

        JsonNode paged = history(p, "h", "pageNo", "2", "pageSize", "3");
        assertEquals(2, paged.get("pagesAvailable").asInt());
        assertEquals(1, paged.get("pageItems").size());
        assertEquals("I         ", paged.get("pageItems").get(0).get("opType").asText());
    }

    @Test
    void compareAndPublishWritesOnlyOverTheExpectedMd5() throws Exception {
        ServerProcess p = cluster.startStandalone("cas");
        assertEquals(200, StandaloneServerIT.publish(p, "c", "one").status());
        Http.Response ok = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                params("dataId", "c", "group", "DEFAULT_GROUP", "content", "two", "casMd5", md5("one")));
        assertEquals(200, ok.status(), ok.body());
        Http.Response stale = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                params("dataId", "c", "group", "DEFAULT_GROUP", "content", "three", "casMd5", md5("one")));
        assertEquals(409, stale.status(), "a stale md5 is a conflict, not a server error");
        assertTrue(stale.body().contains("Cas publish fail"), stale.body());
        assertEquals("two", StandaloneServerIT.read(p, "c").body());
        assertEquals(2, history(p, "c").get("totalCount").asInt(), "the refused publish left no history");

        Http.Response missing = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                params("dataId", "absent", "group", "DEFAULT_GROUP", "content", "x", "casMd5", md5("x")));
        assertEquals(409, missing.status());
        assertEquals(404, StandaloneServerIT.read(p, "absent").status());
    }

    @Test
    void concurrentPublishesToOneConfigEachLeaveExactlyOneHistoryEntry() throws Exception {
        ServerProcess p = cluster.startStandalone("race");
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int writer = t;
            Thread th = new Thread(() -> {
                for (int i = 0; i < 25; i++) {
                    String content = "w" + writer + "-" + i;
                    try {
                        Http.Response r = StandaloneServerIT.publish(p, "hot", content);
                        if (r.status() == 200) {
                            acknowledged.add(content);
                        } else {
                            failures.add(r.status() + " " + r.body());
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join(60_000);
        }
        assertEquals(List.of(), failures);
        assertEquals(100, acknowledged.size());
        JsonNode page = history(p, "hot", "pageSize", "500");
        assertEquals(100, page.get("totalCount").asInt(), "one entry per acknowledged publish");
        // each update's replaced content is a content that was published: a chain, no gaps
        Set<String> replaced = new HashSet<>();
        for (JsonNode item : page.get("pageItems")) {
            if (item.get("opType").asText().startsWith("U")) {
                replaced.add(Http.json(
                                p.httpAddress(),
                                HISTORY + "?"
                                        + Http.query(params(
                                                "nid",
                                                item.get("id").asText(),
                                                "dataId",
                                                "hot",
                                                "group",
                                                "DEFAULT_GROUP")))
                        .get("content")
                        .asText());
            }
        }
        assertEquals(99, replaced.size(), "every update replaced a distinct earlier publish");
        assertTrue(acknowledged.containsAll(replaced));
    }

    @Test
    void rollbackRepublishesAnOldVersion() throws Exception {
        ServerProcess p = cluster.startStandalone("rollback");
        StandaloneServerIT.publish(p, "r", "good");
        StandaloneServerIT.publish(p, "r", "bad");
        JsonNode insert = history(p, "r").get("pageItems").get(1);
        assertEquals("I         ", insert.get("opType").asText());
        Http.Response r = Http.postForm(
                p.httpAddress(),
                "/lodestar/v1/cs/history/rollback",
                params("nid", insert.get("id").asText(), "dataId", "r", "group", "DEFAULT_GROUP"));
        assertEquals(200, r.status(), r.body());
        assertEquals("good", StandaloneServerIT.read(p, "r").body());
        assertEquals(3, history(p, "r").get("totalCount").asInt());
    }

    @Test
    void badHistoryRequestsAreRejected() throws Exception {
        ServerProcess p = cluster.startStandalone("hist-bad");
        record Case(String why, String query, int status, String mentions) {}
        List<Case> cases = List.of(
                new Case("no dataId", "search=accurate&group=G", 400, "dataId"),
                new Case("illegal dataId", "search=accurate&dataId=a%2Fb&group=G", 400, "dataId"),
                new Case("non-numeric nid", "nid=abc&dataId=d&group=G", 400, "nid"),
                new Case("unknown nid", "nid=123456&dataId=d&group=G", 404, "not found"),
                new Case("pageSize zero", "search=accurate&dataId=d&group=G&pageSize=0", 400, "pageSize"),
                new Case("pageSize too big", "search=accurate&dataId=d&group=G&pageSize=501", 400, "pageSize"),
                new Case("non-numeric pageNo", "search=accurate&dataId=d&group=G&pageNo=x", 400, "pageNo"));
        for (Case c : cases) {
            Http.Response r = Http.get(p.httpAddress(), HISTORY + "?" + c.query);
            assertEquals(c.status, r.status(), c.why + ": " + r.body());
            assertTrue(r.body().contains(c.mentions), c.why + ": " + r.body());
        }
        Http.Response previous = Http.get(p.httpAddress(), HISTORY + "/previous?dataId=d&group=G");
        assertEquals(400, previous.status());
        assertTrue(previous.body().contains("id"), previous.body());
        Http.Response rollback = Http.postForm(
                p.httpAddress(), "/lodestar/v1/cs/history/rollback", params("nid", "999", "dataId", "d", "group", "G"));
        assertEquals(400, rollback.status());
        assertTrue(rollback.body().contains("nid"), rollback.body());
    }
}
