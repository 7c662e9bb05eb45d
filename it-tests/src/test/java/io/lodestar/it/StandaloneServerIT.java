package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A standalone server as users run it: publish, read, stop, kill, restart. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StandaloneServerIT {
    @RegisterExtension
    final Servers servers = new Servers();

    static Http.Response publish(ServerProcess p, String dataId, String content) throws Exception {
        return Http.postForm(p.httpAddress(), "/nacos/v1/cs/configs",
                params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
    }

    static Http.Response read(ServerProcess p, String dataId) throws Exception {
        return Http.get(p.httpAddress(), "/nacos/v1/cs/configs?" + Http.query(params("dataId", dataId, "group", "DEFAULT_GROUP")));
    }

    @Test
    void publishedConfigIsServedAndSurvivesGracefulRestart() throws Exception {
        ServerProcess p = servers.standalone("solo").start();
        Servers.awaitReady(p);
        assertEquals(200, Http.get(p.httpAddress(), "/nacos/v1/console/health/liveness").status());

        Http.Response published = publish(p, "app.yaml", "port: 8080\nname: é");
        assertEquals(200, published.status(), published.body());
        assertEquals("true", published.body());
        Http.Response got = read(p, "app.yaml");
        assertEquals(200, got.status());
        assertEquals("port: 8080\nname: é", got.body());
        assertEquals("text", got.headers().firstValue("Config-Type").orElse(null));
        assertEquals(404, read(p, "missing").status());

        assertEquals(0, p.stop(), "SIGTERM exits 0");
        assertTrue(p.logText().contains("Lodestar stopped"));
        p.start();
        Servers.awaitReady(p);
        assertEquals("port: 8080\nname: é", read(p, "app.yaml").body());
    }

    @Test
    void acknowledgedPublishesSurviveKill9() throws Exception {
        ServerProcess p = servers.standalone("solo").start();
        Servers.awaitReady(p);
        for (int i = 0; i < 50; i++) {
            assertEquals(200, publish(p, "k" + i, "v" + i).status());
        }
        p.kill();
        p.start();
        Servers.awaitReady(p);
        for (int i = 0; i < 50; i++) {
            assertEquals("v" + i, read(p, "k" + i).body(), "k" + i + " after kill -9");
        }
    }

    @Test
    void portsListenOnTheGivenHostOnly() throws Exception {
        ServerProcess p = servers.standalone("solo").start();
        Servers.awaitReady(p);
        // All of 127/8 reaches this host: a port bound to every interface would answer on 127.0.0.2 too.
        for (int port : new int[] {p.raftPort, p.httpPort}) {
            try (java.net.Socket ok = new java.net.Socket("127.0.0.1", port)) {
                assertTrue(ok.isConnected());
            }
            assertThrows(java.net.ConnectException.class, () -> new java.net.Socket("127.0.0.2", port).close(),
                    "port " + port + " must not listen beyond --host");
        }
    }

    @Test
    void prometheusMetricsShowTheNodeAndItsRequests() throws Exception {
        ServerProcess p = servers.standalone("solo").start();
        Servers.awaitReady(p);
        assertEquals(200, publish(p, "m", "x").status());
        Http.Response metrics = Http.get(p.httpAddress(), "/metrics");
        assertEquals(200, metrics.status());
        String text = metrics.body();
        assertTrue(text.contains("lodestar_ready 1.0"), text);
        assertTrue(text.contains("lodestar_raft_is_leader 1.0"), text);
        assertTrue(text.contains("http_server_requests_seconds_count{method=\"POST\",route=\"/nacos/v1/cs/configs\",status=\"200\"}"), text);
        assertTrue(text.contains("jvm_memory_used_bytes"), text);
    }

    @Test
    void plainReadAnswersAsTheRouteDoesAndIsCounted() throws Exception {
        ServerProcess p = servers.standalone("solo").start();
        Servers.awaitReady(p);
        assertEquals(200, Http.postForm(p.httpAddress(), "/nacos/v1/cs/configs", params("dataId", "db.yaml",
                "group", "G", "content", "url: x\nname: é", "type", "yaml")).status());
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
        java.util.regex.Matcher count = java.util.regex.Pattern.compile(
                "http_server_requests_seconds_count\\{method=\"GET\",route=\"/nacos/v1/cs/configs\",status=\"200\"} (\\S+)")
                .matcher(metrics);
        assertTrue(count.find(), metrics);
        assertEquals(4.0, Double.parseDouble(count.group(1)), "3 plain reads and 1 through the route are counted");
    }

    @Test
    void startupLogNamesPortsDataDirAndRole() throws Exception {
        ServerProcess p = servers.standalone("solo").start();
        Servers.awaitReady(p);
        Await.until(Duration.ofSeconds(10), "role logged", () -> p.logText().contains("role LEADER"));
        String log = p.logText();
        assertTrue(log.contains("HTTP http://" + p.httpAddress()), log);
        assertTrue(log.contains("Raft " + p.raftAddress()), log);
        assertTrue(log.contains(p.dataDir.toAbsolutePath().normalize().toString()), log);

        JsonNode cluster = Http.json(p.httpAddress(), "/lodestar/v1/cluster");
        assertEquals(p.raftAddress(), cluster.get("self").asText());
        assertEquals(p.raftAddress(), cluster.get("leader").asText());
        assertEquals("LEADER", cluster.get("members").get(0).get("state").asText());
        Await.until(Duration.ofSeconds(10), "own http address published", () -> p.httpAddress().equals(
                Http.json(p.httpAddress(), "/lodestar/v1/cluster").get("members").get(0).get("httpAddress").asText()));
    }
}
