package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A standalone server as users run it: publish, read, stop, kill, restart. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StandaloneServerIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    static Http.Response publish(ServerProcess p, String dataId, String content) throws Exception {
        return Http.postForm(
                p.httpAddress(),
                "/nacos/v1/cs/configs",
                params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
    }

    static Http.Response read(ServerProcess p, String dataId) throws Exception {
        return Http.get(
                p.httpAddress(),
                "/nacos/v1/cs/configs?" + Http.query(params("dataId", dataId, "group", "DEFAULT_GROUP")));
    }

    @Test
    void publishedConfigIsServedAndSurvivesGracefulRestart() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        assertEquals(
                200,
                Http.get(p.httpAddress(), "/nacos/v1/console/health/liveness").status());

        Http.Response published = publish(p, "app.yaml", "port: 8080\nname: é");
        assertEquals(200, published.status(), published.body());
        assertEquals("true", published.body());
        Http.Response got = read(p, "app.yaml");
        assertEquals(200, got.status());
        assertEquals("port: 8080\nname: é", got.body());
        assertEquals("text", got.headers().firstValue("Config-Type").orElse(null));
        assertEquals(404, read(p, "missing").status());

        assertEquals(0, cluster.stop(p), "SIGTERM exits 0");
        assertTrue(p.logText().contains("Lodestar stopped"));
        cluster.start(p);
        assertEquals("port: 8080\nname: é", read(p, "app.yaml").body());
    }

    /**
     * SIGTERM while a publish is under way (most of its body sent, the rest held back): the stop
     * waits for it, the client gets its answer, and the write is there after the restart. Without
     * the drain the connection was closed under the request. The part sent first is 64 KiB so that
     * the body stays above the minimum data rate (1 KiB/s on average) for the whole pause: a body
     * that stalls below it is cut off with 408, drain or not.
     */
    @Test
    void aStopLetsTheRequestInFlightFinish() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        String content = "x".repeat(64 * 1024) + "finished";
        byte[] body = ("dataId=drained&group=DEFAULT_GROUP&content=" + content).getBytes(StandardCharsets.US_ASCII);
        int sentFirst = body.length - "finished".length();
        try (Socket s = new Socket(p.host, p.httpPort)) {
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /nacos/v1/cs/configs HTTP/1.1\r\nHost: lodestar\r\nConnection: close\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length
                            + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, sentFirst);
            out.flush();
            // in flight: its handler waits for the rest of the body (the scrape itself is the other one)
            Await.until(
                    Duration.ofSeconds(10),
                    "the publish to be in flight",
                    () -> requestsActive(Http.get(p.httpAddress(), "/metrics").body()) >= 2);
            ProcessHandle.of(p.pid()).orElseThrow().destroy(); // SIGTERM
            Await.until(
                    Duration.ofSeconds(10),
                    "the stop to begin",
                    () -> p.logText().contains("shutdown requested"));
            out.write(body, sentFirst, body.length - sentFirst);
            out.flush();
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 200 "), answer);
            assertTrue(answer.endsWith("\r\n\r\ntrue"), answer);
        }
        assertEquals(0, p.waitExit(Duration.ofSeconds(30)), "the drained stop exits 0");
        cluster.start(p);
        assertEquals(content, read(p, "drained").body());
    }

    private static double requestsActive(String metrics) {
        java.util.regex.Matcher active = java.util.regex.Pattern.compile("(?m)^http_server_requests_active (\\S+)$")
                .matcher(metrics);
        assertTrue(active.find(), "no http_server_requests_active gauge: " + metrics);
        return Double.parseDouble(active.group(1));
    }

    @Test
    void acknowledgedPublishesSurviveKill9() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        for (int i = 0; i < 50; i++) {
            assertEquals(200, publish(p, "k" + i, "v" + i).status());
        }
        cluster.restart(p);
        for (int i = 0; i < 50; i++) {
            assertEquals("v" + i, read(p, "k" + i).body(), "k" + i + " after kill -9");
        }
    }

    @Test
    void portsListenOnTheGivenHostOnly() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        // All of 127/8 reaches this host: a port bound to every interface would answer on 127.0.0.2 too.
        for (int port : new int[] {p.raftPort, p.httpPort}) {
            try (java.net.Socket ok = new java.net.Socket("127.0.0.1", port)) {
                assertTrue(ok.isConnected());
            }
            assertThrows(
                    java.net.ConnectException.class,
                    () -> new java.net.Socket("127.0.0.2", port).close(),
                    "port " + port + " must not listen beyond --host");
        }
    }

    @Test
    void prometheusMetricsShowTheNodeAndItsRequests() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        assertEquals(200, publish(p, "m", "x").status());
        Http.Response metrics = Http.get(p.httpAddress(), "/metrics");
        assertEquals(200, metrics.status());
        String text = metrics.body();
        assertTrue(text.contains("lodestar_ready 1.0"), text);
        assertTrue(text.contains("lodestar_raft_is_leader 1.0"), text);
        assertTrue(
                text.contains(
                        "http_server_requests_seconds_count{method=\"POST\",route=\"/nacos/v1/cs/configs\",status=\"200\"}"),
                text);
        assertTrue(text.contains("jvm_memory_used_bytes"), text);
        // the store's native memory, which the JVM's own figures leave out: the publish is in a memtable
        assertTrue(gauge(text, "lodestar_store_memtable_bytes") > 0, text);
        assertTrue(gauge(text, "lodestar_store_block_cache_bytes") >= 0, text);
        assertTrue(gauge(text, "lodestar_store_table_readers_bytes") >= 0, text);
    }

    private static double gauge(String metrics, String name) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(metrics);
        assertTrue(m.find(), "no " + name + " gauge: " + metrics);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void plainReadsAndPublishesAnswerAsTheRouteDoesAndAreCounted() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        java.util.Map<String, String> publish =
                params("dataId", "db.yaml", "group", "G", "content", "url: x\nname: é", "type", "yaml");
        // a parameter the route ignores, given twice, takes a publish past the fast path to the route
        Http.Response publishViaRoute = Http.send(p.httpAddress(), "POST", "/nacos/v1/cs/configs?app=a&app=b", publish);
        Http.Response fastPublish = Http.postForm(p.httpAddress(), "/nacos/v1/cs/configs", publish);
        assertEquals(List.of(200, "true"), List.of(publishViaRoute.status(), publishViaRoute.body()));
        assertEquals(List.of(200, "true"), List.of(fastPublish.status(), fastPublish.body()));
        assertSameHeaders(publishViaRoute, fastPublish);
        JsonNode history = ConfigHistoryIT.history(p, "db.yaml", "group", "G").get("pageItems");
        assertEquals(2, history.size(), "both publishes recorded: " + history);
        // an import is the route's, whatever its body: not taken for a publish
        Http.Response notAnImport = Http.send(
                p.httpAddress(),
                "POST",
                "/nacos/v1/cs/configs?import=true",
                params("dataId", "imported", "group", "G", "content", "x"));
        assertEquals(400, notAnImport.status(), notAnImport.body());
        assertEquals(
                404,
                Http.get(p.httpAddress(), "/nacos/v1/cs/configs?dataId=imported&group=G")
                        .status());
        Http.Response blank = Http.postForm(
                p.httpAddress(), "/nacos/v1/cs/configs", params("dataId", "db.yaml", "group", "G", "content", " "));
        assertEquals(400, blank.status());
        assertTrue(blank.body().contains("content"), blank.body());
        String plain = "/nacos/v1/cs/configs?" + Http.query(params("dataId", "db.yaml", "group", "G"));
        // an extra parameter the route ignores takes the request past the plain-read handler to the route
        Http.Response viaRoute = Http.get(p.httpAddress(), plain + "&appName=x");
        for (int i = 0; i < 3; i++) {
            Http.Response fast = Http.get(p.httpAddress(), plain);
            assertEquals(200, fast.status());
            assertEquals(viaRoute.body(), fast.body());
            assertEquals("url: x\nname: é", fast.body());
            for (String h : new String[] {"Content-Type", "Content-MD5", "Config-Type", "Pragma", "Cache-Control"}) {
                assertEquals(viaRoute.headers().allValues(h), fast.headers().allValues(h), h);
            }
        }
        assertEquals("yaml", viaRoute.headers().firstValue("Config-Type").orElse(null));

        String metrics = Http.get(p.httpAddress(), "/metrics").body();
        assertEquals(
                4.0,
                requestCount(metrics, "GET", "/nacos/v1/cs/configs", 200),
                "3 plain reads and 1 through the route");
        assertEquals(2.0, requestCount(metrics, "POST", "/nacos/v1/cs/configs", 200));
        assertEquals(
                2.0, requestCount(metrics, "POST", "/nacos/v1/cs/configs", 400), "the import and the blank content");
    }

    @Test
    void theNamingClientsCommonRequestsAnswerAsTheRoutesDoAndAreCounted() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        String a = p.httpAddress();
        String instance = "/nacos/v1/ns/instance";
        // a parameter the routes ignore, given twice, takes a request past the fast paths to the route
        String toRoute = "?app=a&app=b";
        java.util.Map<String, String> register = params(
                "serviceName",
                "G@@fast",
                "ip",
                "127.1.0.1",
                "port",
                "80",
                "metadata",
                "{\"k\":\"v é\"}",
                "weight",
                "2");
        Http.Response routeRegister = Http.send(a, "POST", instance + toRoute, register);
        Http.Response fastRegister = Http.postForm(a, instance, register);
        assertEquals(List.of(200, "ok"), List.of(routeRegister.status(), routeRegister.body()));
        assertEquals(List.of(200, "ok"), List.of(fastRegister.status(), fastRegister.body()));
        assertSameHeaders(routeRegister, fastRegister);

        String list = instance + "/list?" + Http.query(params("serviceName", "G@@fast", "healthyOnly", "false"));
        Http.Response routeList = Http.get(a, list + "&app=a&app=b");
        Http.Response fastList = Http.get(a, list);
        assertEquals(200, fastList.status(), fastList.body());
        assertEquals(withoutQueryTime(routeList.body()), withoutQueryTime(fastList.body()));
        assertEquals(
                "v é",
                Http.JSON
                        .readTree(fastList.body())
                        .get("hosts")
                        .get(0)
                        .get("metadata")
                        .get("k")
                        .asText());
        assertSameHeaders(routeList, fastList);

        // as the 1.x client beats: the address in the query, the BeatInfo in the form
        String beatQuery = "/beat?" + Http.query(params("serviceName", "G@@fast", "ip", "127.1.0.1", "port", "80"));
        java.util.Map<String, String> beatForm =
                params("beat", "{\"ip\":\"127.1.0.1\",\"port\":80,\"serviceName\":\"G@@fast\"}");
        Http.Response routeBeat = Http.send(a, "PUT", instance + beatQuery + "&app=a&app=b", beatForm);
        Http.Response fastBeat = Http.send(a, "PUT", instance + beatQuery, beatForm);
        assertEquals(200, fastBeat.status(), fastBeat.body());
        assertEquals(routeBeat.body(), fastBeat.body());
        assertEquals(10200, Http.JSON.readTree(fastBeat.body()).get("code").asInt());
        assertSameHeaders(routeBeat, fastBeat);

        // what the fast paths decline reaches the route whole: the port it names is in the form body
        Http.Response bad =
                Http.postForm(a, instance, params("serviceName", "G@@fast", "ip", "127.1.0.2", "port", "80x"));
        assertEquals(400, bad.status());
        assertTrue(bad.body().contains("port"), bad.body());
        assertEquals(
                200,
                Http.postForm(
                                a,
                                instance,
                                params(
                                        "serviceName",
                                        "G@@durable",
                                        "ip",
                                        "127.1.0.3",
                                        "port",
                                        "81",
                                        "ephemeral",
                                        "false"))
                        .status());
        JsonNode durable = Http.json(a, instance + "/list?serviceName=G%40%40durable")
                .get("hosts")
                .get(0);
        assertEquals("127.1.0.3", durable.get("ip").asText());
        assertTrue(!durable.get("ephemeral").asBoolean());

        String metrics = Http.get(a, "/metrics").body();
        assertEquals(
                3.0, requestCount(metrics, "POST", instance, 200), "2 ephemeral (one through the route), 1 persistent");
        Http.Response mixed =
                Http.postForm(a, instance, params("serviceName", "G@@durable", "ip", "127.1.0.4", "port", "81"));
        assertEquals(400, mixed.status(), "a refusal of the write itself is answered as the route answers it");
        assertTrue(mixed.body().startsWith("caused: ") && mixed.body().contains("persistent"), mixed.body());
        assertEquals(1.0, requestCount(metrics, "POST", instance, 400));
        assertEquals(2.0, requestCount(metrics, "PUT", instance + "/beat", 200));
    }

    /** The list body without lastRefTime, which is the time of the query (as Nacos answers). */
    private static JsonNode withoutQueryTime(String listBody) throws Exception {
        com.fasterxml.jackson.databind.node.ObjectNode list =
                (com.fasterxml.jackson.databind.node.ObjectNode) Http.JSON.readTree(listBody);
        assertTrue(list.remove("lastRefTime").asLong() > 0, listBody);
        return list;
    }

    private static void assertSameHeaders(Http.Response viaRoute, Http.Response fast) {
        assertEquals(
                viaRoute.headers().allValues("Content-Type"), fast.headers().allValues("Content-Type"));
    }

    private static double requestCount(String metrics, String method, String route, int status) {
        java.util.regex.Matcher count = java.util.regex.Pattern.compile(
                        "http_server_requests_seconds_count\\{method=\"" + method + "\",route=\""
                                + java.util.regex.Pattern.quote(route) + "\",status=\"" + status + "\"} (\\S+)")
                .matcher(metrics);
        assertTrue(count.find(), method + " " + route + " " + status + " not counted: " + metrics);
        return Double.parseDouble(count.group(1));
    }

    @Test
    void startupLogNamesPortsDataDirAndRole() throws Exception {
        ServerProcess p = cluster.startStandalone("solo");
        Await.until(Duration.ofSeconds(10), "role logged", () -> p.logText().contains("role LEADER"));
        String log = p.logText();
        assertTrue(log.contains("HTTP http://" + p.httpAddress()), log);
        assertTrue(log.contains("Raft " + p.raftAddress()), log);
        assertTrue(log.contains(p.dataDir.toAbsolutePath().normalize().toString()), log);

        JsonNode cluster = Http.json(p.httpAddress(), "/lodestar/v1/cluster");
        assertEquals(p.raftAddress(), cluster.get("self").asText());
        assertEquals(p.raftAddress(), cluster.get("leader").asText());
        assertEquals("LEADER", cluster.get("members").get(0).get("state").asText());
        Await.until(
                Duration.ofSeconds(10),
                "own http address published",
                () -> p.httpAddress()
                        .equals(Http.json(p.httpAddress(), "/lodestar/v1/cluster")
                                .get("members")
                                .get(0)
                                .get("httpAddress")
                                .asText()));
    }
}
