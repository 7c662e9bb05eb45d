package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Config search ({@code search=accurate|blur}) and detail ({@code show=all}) as Nacos answers them. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConfigSearchIT {
    private static final String PATH = "/nacos/v1/cs/configs";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private static void publish(ServerProcess p, String... kv) throws Exception {
        Map<String, String> form = params(kv);
        form.putIfAbsent("content", "content of " + form.get("dataId"));
        Http.Response r = Http.postForm(p.httpAddress(), PATH, form);
        assertEquals(200, r.status(), "publish " + form + ": " + r.body());
    }

    private static JsonNode search(ServerProcess p, String... kv) throws Exception {
        return Http.json(p.httpAddress(), PATH + "?" + Http.query(params(kv)));
    }

    /** "dataId@group" of each page item, in order. */
    private static List<String> names(JsonNode page) {
        List<String> names = new ArrayList<>();
        for (JsonNode item : page.get("pageItems")) {
            names.add(item.get("dataId").asText() + "@" + item.get("group").asText());
        }
        return names;
    }

    @Test
    void accurateAndBlurSearchFilterSortAndPage() throws Exception {
        ServerProcess p = cluster.startStandalone("search");
        publish(p, "dataId", "order.yaml", "group", "SHOP", "appName", "orders", "config_tags", "prod,eu");
        publish(p, "dataId", "order.yaml", "group", "DEFAULT_GROUP", "appName", "orders", "config_tags", "dev");
        publish(p, "dataId", "order-db.yaml", "group", "SHOP", "config_tags", "prod");
        publish(p, "dataId", "user.yaml", "group", "SHOP", "appName", "users", "type", "yaml");
        publish(p, "dataId", "a_b", "group", "SHOP");
        publish(p, "dataId", "axb", "group", "SHOP");
        publish(p, "dataId", "order.yaml", "group", "SHOP", "tenant", "other-ns");

        // accurate: exact dataId, any group, public namespace only; sorted by dataId then group
        JsonNode page =
                search(p, "search", "accurate", "dataId", "order.yaml", "group", "", "pageNo", "1", "pageSize", "10");
        assertEquals(List.of("order.yaml@DEFAULT_GROUP", "order.yaml@SHOP"), names(page));
        assertEquals(2, page.get("totalCount").asInt());
        assertEquals(1, page.get("pageNumber").asInt());
        assertEquals(1, page.get("pagesAvailable").asInt());
        JsonNode item = page.get("pageItems").get(1);
        assertEquals("content of order.yaml", item.get("content").asText());
        assertEquals(
                ConfigHistoryIT.md5("content of order.yaml"), item.get("md5").asText());
        assertEquals("", item.get("tenant").asText());
        assertEquals("orders", item.get("appName").asText());
        assertTrue(
                item.get("id").isTextual() && Long.parseLong(item.get("id").asText()) > 0,
                "id is a numeric string: " + item);
        assertTrue(item.has("type"), item.toString());

        // accurate without `*` semantics: "order" matches nothing, "order*" is taken literally
        assertEquals(
                0,
                search(p, "search", "accurate", "dataId", "order")
                        .get("totalCount")
                        .asInt());
        assertEquals(
                0,
                search(p, "search", "accurate", "dataId", "order*")
                        .get("totalCount")
                        .asInt());
        // accurate on group and appName
        assertEquals(
                List.of("a_b@SHOP", "axb@SHOP", "order-db.yaml@SHOP", "order.yaml@SHOP", "user.yaml@SHOP"),
                names(search(p, "search", "accurate", "group", "SHOP")));
        assertEquals(List.of("user.yaml@SHOP"), names(search(p, "search", "accurate", "appName", "users")));

        // blur: `*` is any run of characters; without `*` an exact match, and `_` is literal
        assertEquals(
                List.of("order-db.yaml@SHOP", "order.yaml@DEFAULT_GROUP", "order.yaml@SHOP"),
                names(search(p, "search", "blur", "dataId", "order*")));
        assertEquals(
                List.of("order-db.yaml@SHOP", "order.yaml@DEFAULT_GROUP", "order.yaml@SHOP", "user.yaml@SHOP"),
                names(search(p, "search", "blur", "dataId", "*.yaml")));
        assertEquals(List.of("order-db.yaml@SHOP"), names(search(p, "search", "blur", "dataId", "*-d*")));
        assertEquals(List.of(), names(search(p, "search", "blur", "dataId", "order")));
        assertEquals(List.of("a_b@SHOP"), names(search(p, "search", "blur", "dataId", "a_b")));
        assertEquals(
                List.of("order.yaml@DEFAULT_GROUP"),
                names(search(p, "search", "blur", "dataId", "order*", "group", "DEF*")));

        // tags: a config carrying any of the given tags (Nacos joins tags with IN)
        assertEquals(
                List.of("order-db.yaml@SHOP", "order.yaml@SHOP"),
                names(search(p, "search", "accurate", "config_tags", "prod")));
        assertEquals(List.of("order.yaml@SHOP"), names(search(p, "search", "accurate", "config_tags", "eu")));
        assertEquals(
                List.of("order.yaml@DEFAULT_GROUP", "order.yaml@SHOP"),
                names(search(p, "search", "accurate", "config_tags", "eu,dev")));
        assertEquals(List.of(), names(search(p, "search", "accurate", "config_tags", "pro")));
        assertEquals(
                List.of("order-db.yaml@SHOP", "order.yaml@SHOP"),
                names(search(p, "search", "blur", "config_tags", "pr*")));

        // tenant isolation: the other namespace sees only its own config, the public one never sees it
        JsonNode other = search(p, "search", "accurate", "tenant", "other-ns");
        assertEquals(List.of("order.yaml@SHOP"), names(other));
        assertEquals("other-ns", other.get("pageItems").get(0).get("tenant").asText());
        assertEquals(
                0,
                search(p, "search", "blur", "dataId", "*", "tenant", "other")
                        .get("totalCount")
                        .asInt());

        // paging: 6 public configs, pages of 4
        JsonNode first = search(p, "search", "blur", "dataId", "*", "pageNo", "1", "pageSize", "4");
        JsonNode second = search(p, "search", "blur", "dataId", "*", "pageNo", "2", "pageSize", "4");
        JsonNode beyond = search(p, "search", "blur", "dataId", "*", "pageNo", "3", "pageSize", "4");
        assertEquals(6, first.get("totalCount").asInt());
        assertEquals(2, first.get("pagesAvailable").asInt());
        assertEquals(List.of("a_b@SHOP", "axb@SHOP", "order-db.yaml@SHOP", "order.yaml@DEFAULT_GROUP"), names(first));
        assertEquals(List.of("order.yaml@SHOP", "user.yaml@SHOP"), names(second));
        assertEquals(2, second.get("pageNumber").asInt());
        assertEquals(List.of(), names(beyond));
        assertEquals(6, beyond.get("totalCount").asInt());

        // without `search` the plain read is unchanged: the raw content
        Http.Response raw = Http.get(p.httpAddress(), PATH + "?dataId=user.yaml&group=SHOP");
        assertEquals(200, raw.status());
        assertEquals("content of user.yaml", raw.body());
    }

    @Test
    void showAllAnswersEveryFieldOfTheConfig() throws Exception {
        ServerProcess p = cluster.startStandalone("show-all");
        long before = System.currentTimeMillis();
        publish(
                p,
                "dataId",
                "app.properties",
                "group",
                "G",
                "tenant",
                "ns1",
                "content",
                "k=v",
                "type",
                "properties",
                "desc",
                "the app",
                "appName",
                "app",
                "config_tags",
                "a,b");
        JsonNode all = Http.json(p.httpAddress(), PATH + "?show=all&dataId=app.properties&group=G&tenant=ns1");
        assertEquals("app.properties", all.get("dataId").asText());
        assertEquals("G", all.get("group").asText());
        assertEquals("ns1", all.get("tenant").asText());
        assertEquals("k=v", all.get("content").asText());
        assertEquals(ConfigHistoryIT.md5("k=v"), all.get("md5").asText());
        assertEquals("properties", all.get("type").asText());
        assertEquals("the app", all.get("desc").asText());
        assertEquals("app", all.get("appName").asText());
        assertEquals("a,b", all.get("configTags").asText());
        assertEquals("127.0.0.1", all.get("createIp").asText());
        assertTrue(all.get("id").isTextual(), all.toString());
        assertTrue(all.has("createUser"), all.toString());
        long created = all.get("createTime").asLong();
        assertTrue(created >= before - 5_000 && created <= System.currentTimeMillis() + 5_000, "createTime " + created);
        assertTrue(all.get("modifyTime").asLong() >= created, all.toString());

        Http.Response missing = Http.get(p.httpAddress(), PATH + "?show=all&dataId=app.properties&group=G");
        assertEquals(404, missing.status(), "another namespace: " + missing.body());
        assertEquals(
                404,
                Http.get(p.httpAddress(), PATH + "?show=all&dataId=nope&group=G&tenant=ns1")
                        .status());
    }

    record Case(String why, String query, String mentions) {}

    @Test
    void badSearchesAreRejectedNamingTheFieldAndWriteNothing() throws Exception {
        ServerProcess p = cluster.startStandalone("search-bad");
        publish(p, "dataId", "d", "group", "G");
        List<Case> cases = List.of(
                new Case("pageSize 0", "search=accurate&pageNo=1&pageSize=0", "pageSize"),
                new Case("pageSize 501", "search=accurate&pageNo=1&pageSize=501", "pageSize"),
                new Case("pageSize not a number", "search=blur&pageNo=1&pageSize=ten", "pageSize"),
                new Case("pageNo 0", "search=blur&pageNo=0&pageSize=10", "pageNo"),
                new Case("pageNo negative", "search=blur&pageNo=-1&pageSize=10", "pageNo"),
                new Case("pageNo not a number", "search=blur&pageNo=x&pageSize=10", "pageNo"),
                new Case("unknown search mode", "search=bogus&dataId=d&group=G", "search"),
                new Case("empty search mode", "search=&dataId=d&group=G", "search"),
                new Case("show=all without dataId", "show=all&group=G", "dataId"));
        long revision = ConfigBadInputIT.revision(p);
        for (Case c : cases) {
            Http.Response r = Http.get(p.httpAddress(), PATH + "?" + c.query);
            assertEquals(400, r.status(), c.why + ": " + r.body());
            assertTrue(r.body().contains(c.mentions), c.why + " should name '" + c.mentions + "': " + r.body());
        }
        assertEquals(
                1,
                search(p, "search", "accurate", "pageNo", "1", "pageSize", "500")
                        .get("totalCount")
                        .asInt(),
                "pageSize 500 is allowed");
        assertEquals(revision, ConfigBadInputIT.revision(p), "no bad request wrote anything");
    }
}
