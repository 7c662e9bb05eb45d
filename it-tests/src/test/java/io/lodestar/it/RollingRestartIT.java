package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listeners keep up with a cluster whose every node is restarted in turn while a writer publishes:
 * first a round of graceful stops (SIGTERM), then a round of SIGKILLs, each node brought back and
 * ready before the next goes down. Long-poll clients (the nacos-client 1.x wire) and push-channel
 * clients (WebSocket, resuming with their last revision) move between nodes as they go down.
 *
 * <p>What "none missed, no duplicates that change the outcome" means here, and is asserted:
 * <ul>
 *   <li><b>Push channel, none missed:</b> for every key, the revisions a client received in
 *   {@code changed} notices are exactly the revisions that changed that key after the client's
 *   first {@code subscribed} — the store's own record of them being the config history, whose
 *   entry {@code id} is the change's revision — across every disconnect, node switch and restart.
 *   <li><b>Push channel, no duplicates:</b> per key, revisions strictly increase over the client's
 *   whole session (all its connections), so no change is delivered twice and none out of order; and
 *   the notices' contents follow the writer's order (a later notice never names an older write).
 *   The last notice's md5 is the md5 of the key's final content.
 *   <li><b>Long-poll, none missed:</b> the wire has no revisions, so a client cannot miss an
 *   intermediate value "visibly"; what it must not miss is the latest one. Every long-poll client
 *   ends holding the final content of every key (what it fetched after its last wake-up).
 *   <li><b>Long-poll, no duplicates that change the outcome:</b> duplicate wake-ups are allowed
 *   (a poll re-armed on another node may be answered for a content already fetched); they must
 *   not leave the client on another value: with the final contents' md5s, every node answers a
 *   no-hang-up poll with no changed key, and everything a client ever fetched is something the
 *   writer published to that key.
 * </ul>
 * The writer's final content of a key is its last acknowledged publish; every node must serve it.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RollingRestartIT {
    private static final List<String> KEYS = List.of("rolling-a", "rolling-b", "rolling-c", "rolling-d");
    /** Between two publishes: a steady load that stays well under the 1,000 history entries kept per config. */
    private static final long WRITE_PACE_MS = 40;

    private static final int LISTENERS_PER_KIND = 3;

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** One writer publishing unique contents in turn to {@link #KEYS}, retrying each key on another node until acknowledged. */
    static final class Writer implements AutoCloseable {
        private final List<ServerProcess> nodes;
        private final Thread thread;
        private volatile boolean running = true;
        final AtomicInteger acknowledged = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        /** Why publishes were not acknowledged: HTTP status or exception class, with counts. */
        final Map<String, Integer> failures = new ConcurrentHashMap<>();
        /** Every content attempted, per key, in order (acknowledged or not): its position is its order. */
        final Map<String, List<String>> attempted = new ConcurrentHashMap<>();
        /** The last acknowledged content per key. */
        final Map<String, String> lastAcknowledged = new ConcurrentHashMap<>();

        Writer(List<ServerProcess> nodes) {
            this.nodes = nodes;
            KEYS.forEach(k -> attempted.put(k, java.util.Collections.synchronizedList(new ArrayList<>())));
            thread = new Thread(this::run, "writer");
            thread.start();
        }

        private void run() {
            int seq = 0;
            int target = 0;
            while (running) {
                String key = KEYS.get(seq % KEYS.size());
                boolean done = false;
                // one key at a time until acknowledged, so the last write of every key is an acknowledged one
                while (!done) {
                    ServerProcess node = nodes.get(Math.floorMod(target++, nodes.size()));
                    if (!node.alive()) {
                        continue;
                    }
                    String content =
                            key + " #" + seq + " (attempt " + attempted.get(key).size() + ")";
                    attempted.get(key).add(content);
                    String failure = null;
                    try {
                        Http.Response r = StandaloneServerIT.publish(node, key, content);
                        done = r.status() == 200;
                        failure = done ? null : "HTTP " + r.status();
                    } catch (Exception e) {
                        done = false;
                        failure = e.getClass().getSimpleName();
                    }
                    if (failure != null) {
                        failures.merge(failure, 1, Integer::sum);
                    }
                    if (done) {
                        lastAcknowledged.put(key, content);
                        acknowledged.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                    pace();
                }
                seq++;
            }
        }

        private static void pace() {
            try {
                Thread.sleep(WRITE_PACE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Stops after the key in progress is acknowledged. */
        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(60_000);
            assertTrue(!thread.isAlive(), "the writer's last publish was acknowledged within a minute");
        }
    }

    @Test
    void listenersOnLongPollAndPushSeeTheFinalContentOfEveryKeyThroughGracefulAndKill9RollingRestarts()
            throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        List<String> addresses = nodes.stream().map(ServerProcess::httpAddress).toList();

        List<ResilientLongPoller> pollers = new ArrayList<>();
        List<ResilientPushListener> pushers = new ArrayList<>();
        for (int i = 0; i < LISTENERS_PER_KIND; i++) {
            pollers.add(new ResilientLongPoller("long-poll-" + i, () -> addresses, i, KEYS));
            pushers.add(new ResilientPushListener("push-" + i, () -> addresses, i, KEYS));
        }
        for (ResilientPushListener p : pushers) {
            p.awaitSubscribed(Duration.ofSeconds(20));
        }
        Await.until(
                Duration.ofSeconds(20),
                "every long-poll client has polled",
                () -> pollers.stream().allMatch(p -> p.polls() > 0));

        long started = System.nanoTime();
        Writer writer = new Writer(nodes);
        try {
            Await.until(Duration.ofSeconds(30), "writes flowing", () -> writer.acknowledged.get() >= 20);
            for (ServerProcess node : nodes) {
                restart(node, writer, true);
            }
            for (ServerProcess node : nodes) {
                restart(node, writer, false);
            }
        } finally {
            writer.close();
        }
        System.out.printf(
                "rolling restarts took %d s: %d publishes acknowledged, %d not (%s)%n",
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
                writer.acknowledged.get(),
                writer.failed.get(),
                writer.failures);

        Map<String, String> finalContent = new HashMap<>(writer.lastAcknowledged);
        assertEquals(KEYS.size(), finalContent.size(), "every key was published");
        for (ServerProcess node : nodes) {
            for (String key : KEYS) {
                Await.until(
                        Duration.ofSeconds(20),
                        key + "'s final content on " + node.httpAddress(),
                        () -> finalContent
                                .get(key)
                                .equals(StandaloneServerIT.read(node, key).body()));
            }
        }
        Map<String, TreeSet<Long>> changes = new HashMap<>();
        for (String key : KEYS) {
            changes.put(key, historyRevisions(addresses.get(0), key));
        }

        try {
            Await.until(
                    Duration.ofSeconds(60),
                    "every long-poll client holds every key's final content",
                    () -> pollers.stream()
                            .allMatch(p -> KEYS.stream()
                                    .allMatch(k -> finalContent.get(k).equals(p.content(k)))));
            Await.until(
                    Duration.ofSeconds(60),
                    "every push client heard every key's last change",
                    () -> pushers.stream()
                            .allMatch(p -> KEYS.stream()
                                    .allMatch(k ->
                                            p.lastRevision(k) >= changes.get(k).last())));
        } finally {
            for (ResilientLongPoller p : pollers) {
                p.close();
                System.out.println(p.summary());
            }
            for (ResilientPushListener p : pushers) {
                p.close();
                System.out.println(p.summary());
            }
        }

        for (ResilientPushListener p : pushers) {
            assertEquals(List.of(), p.violations(), p.summary());
            assertTrue(p.connections() > 1, "the client had to reconnect: " + p.summary());
            for (String key : KEYS) {
                List<ResilientPushListener.Notice> heard = p.notices(key);
                List<Long> heardRevisions = heard.stream()
                        .map(ResilientPushListener.Notice::revision)
                        .toList();
                List<Long> expected = new ArrayList<>(changes.get(key).tailSet(p.firstSubscribedRevision(), false));
                assertEquals(
                        expected,
                        heardRevisions,
                        p.summary() + ": " + key + "'s revisions heard vs. the revisions that changed it");
                List<String> attempts = writer.attempted.get(key);
                int previous = -1;
                for (ResilientPushListener.Notice n : heard) {
                    int position = positionOfMd5(attempts, n.md5());
                    assertTrue(
                            position > previous,
                            p.summary() + ": " + key + " notice " + n + " names write #" + position + " after write #"
                                    + previous);
                    previous = position;
                }
                assertEquals(
                        ResilientLongPoller.md5(finalContent.get(key)),
                        heard.get(heard.size() - 1).md5(),
                        p.summary() + ": " + key + "'s last notice carries the final content's md5");
            }
        }

        HttpClient http = HttpClient.newHttpClient();
        for (ResilientLongPoller p : pollers) {
            for (String key : KEYS) {
                assertTrue(
                        writer.attempted.get(key).containsAll(p.seen(key)),
                        p.summary() + ": fetched only contents the writer published to " + key);
            }
        }
        for (String address : addresses) {
            HttpResponse<String> answer = http.send(
                    ResilientLongPoller.poll(
                            address, ResilientLongPoller.listening(KEYS, finalContent), true, Duration.ofSeconds(10)),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode());
            assertEquals(
                    List.of(),
                    ResilientLongPoller.changedDataIds(answer.body()),
                    address + " reports no change against the final contents");
        }
    }

    /** Stops or kills {@code node} while writes go on, restarts it and waits until it is ready. */
    private void restart(ServerProcess node, Writer writer, boolean graceful) throws Exception {
        long t0 = System.nanoTime();
        if (graceful) {
            assertEquals(0, cluster.stop(node), "clean exit on SIGTERM");
        } else {
            cluster.kill(node);
        }
        int before = writer.acknowledged.get();
        Await.until(
                Duration.ofSeconds(30),
                "writes go on while " + node.httpAddress() + " is down",
                () -> writer.acknowledged.get() >= before + 20);
        cluster.start(node);
        int back = writer.acknowledged.get();
        Await.until(
                Duration.ofSeconds(30),
                "writes go on once " + node.httpAddress() + " is back",
                () -> writer.acknowledged.get() >= back + 10);
        System.out.printf(
                "%s %s and back in %d ms%n",
                node.httpAddress(),
                graceful ? "stopped" : "killed",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    /** The revisions that changed {@code key}: the config history's entry ids (every publish and delete is recorded). */
    private static TreeSet<Long> historyRevisions(String address, String key) throws Exception {
        TreeSet<Long> revisions = new TreeSet<>();
        for (int page = 1; ; page++) {
            JsonNode json = Http.json(
                    address,
                    "/nacos/v1/cs/history?"
                            + Http.query(Http.params(
                                    "search",
                                    "accurate",
                                    "dataId",
                                    key,
                                    "group",
                                    "DEFAULT_GROUP",
                                    "pageNo",
                                    String.valueOf(page),
                                    "pageSize",
                                    "500")));
            for (JsonNode item : json.get("pageItems")) {
                revisions.add(Long.parseLong(item.get("id").asText()));
            }
            if (page >= json.get("pagesAvailable").asInt()) {
                return revisions;
            }
        }
    }

    private static int positionOfMd5(List<String> attempts, String md5) {
        synchronized (attempts) {
            for (int i = 0; i < attempts.size(); i++) {
                if (ResilientLongPoller.md5(attempts.get(i)).equals(md5)) {
                    return i;
                }
            }
        }
        throw new AssertionError("a notice's md5 " + md5 + " matches no content the writer published");
    }
}
