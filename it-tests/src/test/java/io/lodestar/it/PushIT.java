package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The config push channel ({@code /lodestar/v1/push}) against a real server process: push, then pull. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class PushIT {
    private static final Duration NOTICE_DEADLINE = Duration.ofSeconds(5);

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** A WebSocket client that queues every text message it receives, and the close code. */
    static final class Client implements WebSocket.Listener {
        final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        WebSocket ws;

        static Client connect(ServerProcess p) throws Exception {
            Client c = new Client();
            c.ws = HttpClient.newHttpClient()
                    .newWebSocketBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .buildAsync(URI.create("ws://" + p.httpAddress() + "/lodestar/v1/push"), c)
                    .get(10, TimeUnit.SECONDS);
            return c;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    messages.add(Http.JSON.readTree(partial.toString()));
                } catch (Exception e) {
                    closed.completeExceptionally(e);
                }
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }

        void send(String text) throws Exception {
            ws.sendText(text, true).get(10, TimeUnit.SECONDS);
        }

        JsonNode next(Duration timeout) throws InterruptedException {
            JsonNode m = messages.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (m == null) {
                throw new AssertionError(
                        "no message within " + timeout + (closed.isDone() ? "; closed: " + closed : ""));
            }
            return m;
        }

        JsonNode next(String type) throws InterruptedException {
            JsonNode m = next(NOTICE_DEADLINE);
            assertEquals(type, m.path("type").asText(), "message " + m);
            return m;
        }

        /** Subscribes and returns the acknowledgement's revision after collecting the replayed notices into {@code replay}. */
        long subscribe(String keysJson, Long since, List<JsonNode> replay) throws Exception {
            send("{\"type\":\"subscribe\",\"keys\":" + keysJson + (since == null ? "" : ",\"sinceRevision\":" + since)
                    + "}");
            while (true) {
                JsonNode m = next(Duration.ofSeconds(10));
                if ("subscribed".equals(m.path("type").asText())) {
                    return m.get("revision").asLong();
                }
                assertEquals("changed", m.path("type").asText(), "message " + m);
                replay.add(m);
            }
        }

        void close() {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye")
                    .orTimeout(5, TimeUnit.SECONDS)
                    .exceptionally(e -> null)
                    .join();
            ws.abort();
        }

        void assertNothingWithin(Duration d) throws InterruptedException {
            JsonNode m = messages.poll(d.toMillis(), TimeUnit.MILLISECONDS);
            assertEquals(null, m, "no further message expected");
        }
    }

    static String md5(String s) throws Exception {
        return String.format(
                "%032x",
                new BigInteger(1, MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8))));
    }

    private static void publish(ServerProcess p, String dataId, String content) throws Exception {
        assertEquals(200, StandaloneServerIT.publish(p, dataId, content).status());
    }

    private static String key(String dataId) {
        return "[{\"dataId\":\"" + dataId + "\",\"group\":\"DEFAULT_GROUP\",\"tenant\":\"\"}]";
    }

    @Test
    void aPublishIsPushedAtOnceAndTheContentPulledWithAGet() throws Exception {
        ServerProcess p = cluster.startStandalone("push");
        Client c = Client.connect(p);
        List<JsonNode> replay = new ArrayList<>();
        c.subscribe(key("app.yaml"), null, replay);
        assertEquals(List.of(), replay);

        List<Long> latenciesMicros = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            String content = "port: " + (8080 + i);
            long t0 = System.nanoTime();
            publish(p, "app.yaml", content);
            JsonNode notice = c.next("changed");
            latenciesMicros.add((System.nanoTime() - t0) / 1000);
            assertEquals("app.yaml", notice.get("dataId").asText());
            assertEquals("DEFAULT_GROUP", notice.get("group").asText());
            assertEquals("", notice.get("tenant").asText());
            assertEquals(md5(content), notice.get("md5").asText());
            assertTrue(notice.get("revision").asLong() > 0);
            Http.Response pulled =
                    Http.get(p.httpAddress(), "/nacos/v1/cs/configs?dataId=app.yaml&group=DEFAULT_GROUP");
            assertEquals(200, pulled.status());
            assertEquals(content, pulled.body());
        }
        System.out.println("push notice latency (publish request sent -> notice received), micros: " + latenciesMicros);

        assertEquals(
                200,
                Http.delete(p.httpAddress(), "/nacos/v1/cs/configs?dataId=app.yaml&group=DEFAULT_GROUP")
                        .status());
        JsonNode deleted = c.next("changed");
        assertTrue(deleted.get("deleted").asBoolean());
        assertFalse(deleted.has("md5"));

        c.send("{\"type\":\"ping\"}");
        c.next("pong");
        c.close();
    }

    @Test
    void aClientThatReconnectsWithItsLastRevisionGetsEveryMissedChangeAlsoAcrossARestart() throws Exception {
        ServerProcess p = cluster.startStandalone("resume");
        Client c = Client.connect(p);
        c.subscribe(key("r"), null, new ArrayList<>());
        publish(p, "r", "v1");
        long last = c.next("changed").get("revision").asLong();
        c.close();

        publish(p, "r", "v2");
        publish(p, "other", "x"); // a change to a key not subscribed
        publish(p, "r", "v3");
        publish(p, "r", "v4");
        Client again = Client.connect(p);
        List<JsonNode> missed = new ArrayList<>();
        long acked = again.subscribe(key("r"), last, missed);
        List<String> md5s = new ArrayList<>();
        long previous = last;
        for (JsonNode m : missed) {
            assertTrue(m.get("revision").asLong() > previous, "in revision order, no duplicates: " + missed);
            previous = m.get("revision").asLong();
            md5s.add(m.get("md5").asText());
        }
        assertEquals(List.of(md5("v2"), md5("v3"), md5("v4")), md5s);
        assertTrue(acked >= previous);
        again.assertNothingWithin(Duration.ofMillis(300));
        last = previous;
        again.close();

        // a change while the client is away, then a clean restart: the revision survives it
        publish(p, "r", "v5");
        assertEquals(0, cluster.stop(p));
        cluster.start(p);
        publish(p, "r", "v6");

        Client afterRestart = Client.connect(p);
        List<JsonNode> replay = new ArrayList<>();
        afterRestart.subscribe(key("r"), last, replay);
        assertEquals(2, replay.size(), "v5 (before the stop) and v6 (after the start): " + replay);
        assertEquals(md5("v5"), replay.get(0).get("md5").asText());
        assertEquals(md5("v6"), replay.get(1).get("md5").asText());
        assertTrue(replay.get(0).get("revision").asLong() > last);
        assertTrue(replay.get(1).get("revision").asLong()
                > replay.get(0).get("revision").asLong());

        publish(p, "r", "v7"); // and live again
        assertEquals(md5("v7"), afterRestart.next("changed").get("md5").asText());
        afterRestart.close();
    }

    @Test
    void aStaleMd5IsNotifiedOnSubscribe() throws Exception {
        ServerProcess p = cluster.startStandalone("md5");
        publish(p, "m", "current");
        Client c = Client.connect(p);
        c.send("{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"m\",\"md5\":\"" + md5("old") + "\"}]}");
        JsonNode notice = c.next("changed");
        assertEquals(md5("current"), notice.get("md5").asText());
        assertEquals("DEFAULT_GROUP", notice.get("group").asText(), "group defaults as in the GET");
        c.next("subscribed");
        c.send("{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"m\",\"md5\":\"" + md5("current") + "\"}]}");
        c.next("subscribed");
        c.close();
    }

    /** A bad input, and whether the server answers with an error message (true) or closes with 1008. */
    record BadInput(String name, String text, boolean keepsConnection) {}

    @Test
    void badInputGetsAnErrorOrClosesTheConnectionWithPolicyViolation() throws Exception {
        ServerProcess p = cluster.startStandalone("bad");
        StringBuilder many = new StringBuilder("[");
        for (int i = 0; i < 1001; i++) {
            many.append(i == 0 ? "" : ",").append("{\"dataId\":\"k").append(i).append("\"}");
        }
        many.append(']');
        String big = "{\"type\":\"ping\",\"pad\":\"" + "x".repeat((1 << 20) + 10) + "\"}";
        List<BadInput> table = List.of(
                new BadInput("not JSON", "hello", false),
                new BadInput("truncated JSON", "{\"type\":\"subscribe\",", false),
                new BadInput("an array", "[1,2]", true),
                new BadInput("no type", "{}", true),
                new BadInput("unknown type", "{\"type\":\"drop-tables\"}", true),
                new BadInput("subscribe without keys", "{\"type\":\"subscribe\"}", true),
                new BadInput("keys not an array", "{\"type\":\"subscribe\",\"keys\":\"app\"}", true),
                new BadInput("empty keys", "{\"type\":\"subscribe\",\"keys\":[]}", true),
                new BadInput("key not an object", "{\"type\":\"subscribe\",\"keys\":[\"app\"]}", true),
                new BadInput("key without dataId", "{\"type\":\"subscribe\",\"keys\":[{\"group\":\"G\"}]}", true),
                new BadInput("illegal dataId", "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"a b\"}]}", true),
                new BadInput("dataId a number", "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":7}]}", true),
                new BadInput(
                        "negative sinceRevision",
                        "{\"type\":\"subscribe\",\"keys\":" + key("a") + ",\"sinceRevision\":-1}",
                        true),
                new BadInput(
                        "sinceRevision a string",
                        "{\"type\":\"subscribe\",\"keys\":" + key("a") + ",\"sinceRevision\":\"x\"}",
                        true),
                new BadInput(
                        "fractional sinceRevision",
                        "{\"type\":\"subscribe\",\"keys\":" + key("a") + ",\"sinceRevision\":1.5}",
                        true),
                new BadInput(
                        "md5 not a string", "{\"type\":\"subscribe\",\"keys\":[{\"dataId\":\"a\",\"md5\":5}]}", true),
                new BadInput("unsubscribe without keys", "{\"type\":\"unsubscribe\"}", true),
                new BadInput("1001 keys", "{\"type\":\"subscribe\",\"keys\":" + many + "}", false),
                new BadInput("a message over 1 MiB", big, false));
        List<String> failures = new ArrayList<>();
        for (BadInput bad : table) {
            Client c = Client.connect(p);
            c.send(bad.text());
            try {
                if (bad.keepsConnection()) {
                    JsonNode m = c.next(NOTICE_DEADLINE);
                    if (!"error".equals(m.path("type").asText())
                            || m.path("message").asText().isBlank()) {
                        failures.add(bad.name() + ": expected an error message, got " + m);
                    }
                    c.send("{\"type\":\"ping\"}");
                    c.next("pong");
                } else {
                    int code = c.closed.get(10, TimeUnit.SECONDS);
                    if (code != 1008) {
                        failures.add(bad.name() + ": expected close 1008, got " + code);
                    }
                }
            } catch (Throwable e) {
                failures.add(bad.name() + ": " + e);
            }
            System.out.println(
                    "bad input '" + bad.name() + "': " + (bad.keepsConnection() ? "error message" : "close 1008"));
            c.ws.abort();
        }
        assertEquals(List.of(), failures);

        // the server is unharmed
        Client c = Client.connect(p);
        c.subscribe(key("after"), null, new ArrayList<>());
        publish(p, "after", "ok");
        assertNotNull(c.next("changed"));
        c.close();
    }
}
