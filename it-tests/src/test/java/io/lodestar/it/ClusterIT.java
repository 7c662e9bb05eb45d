package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A 3-node group of real processes: agreement on the group's state, forwarding, leader kill -9. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void everyNodeAgreesOnLeaderAndListsEveryMembersHttpAddress() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        Await.until(Duration.ofSeconds(30), "a stable, agreed view on every node", () -> {
            Set<String> leaders = new HashSet<>();
            for (ServerProcess p : nodes) {
                JsonNode view = p.view();
                leaders.add(view.get("leader").asText());
                int leaderCount = 0;
                for (JsonNode m : view.get("members")) {
                    ServerProcess member = nodes.stream()
                            .filter(n -> n.raftAddress().equals(m.get("address").asText()))
                            .findFirst()
                            .orElseThrow();
                    if (!member.httpAddress().equals(m.get("httpAddress").asText())) {
                        return false;
                    }
                    if (m.get("state").asText().equals("LEADER")) {
                        leaderCount++;
                        if (!m.get("address").asText().equals(view.get("leader").asText())) {
                            return false;
                        }
                    } else if (!m.get("state").asText().equals("FOLLOWER")) {
                        return false;
                    }
                }
                if (leaderCount != 1 || view.get("members").size() != 3) {
                    return false;
                }
            }
            return leaders.size() == 1;
        });
    }

    @Test
    void publishThroughAnyNodeIsReadOnEveryNode() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        for (int i = 0; i < 3; i++) {
            Http.Response r = StandaloneServerIT.publish(nodes.get(i), "via-" + i, "content-" + i);
            assertEquals(200, r.status(), r.body());
            // read-your-write on the node that took it, leader or follower
            assertEquals(
                    "content-" + i,
                    StandaloneServerIT.read(nodes.get(i), "via-" + i).body());
        }
        for (ServerProcess reader : nodes) {
            for (int i = 0; i < 3; i++) {
                int n = i;
                Await.until(
                        Duration.ofSeconds(10),
                        "via-" + i + " on " + reader.httpAddress(),
                        () -> ("content-" + n)
                                .equals(StandaloneServerIT.read(reader, "via-" + n)
                                        .body()));
            }
        }
    }

    @Test
    void aLongPollOnAFollowerHearsAPublishMadeThroughTheLeader() throws Exception {
        cluster.start(3);
        ServerProcess leader = cluster.leader();
        ServerProcess follower = cluster.othersThan(leader).get(0);
        assertEquals(200, StandaloneServerIT.publish(leader, "watched", "v1").status());
        Await.until(
                Duration.ofSeconds(10),
                "v1 on the follower",
                () -> "v1".equals(StandaloneServerIT.read(follower, "watched").body()));

        String listening = "watched\u0002DEFAULT_GROUP\u0002" + ConfigHistoryIT.md5("v1") + "\u0001";
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>> poll = client.sendAsync(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                                "http://" + follower.httpAddress() + "/nacos/v1/cs/configs/listener"))
                        .timeout(Duration.ofSeconds(40))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Long-Pulling-Timeout", "30000")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("Listening-Configs="
                                + java.net.URLEncoder.encode(listening, java.nio.charset.StandardCharsets.UTF_8)))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        Await.until(
                Duration.ofSeconds(10),
                "the poll held on the follower",
                () -> Http.json(follower.httpAddress(), "/lodestar/v1/config/listeners")
                                .get("held")
                                .asInt()
                        == 1);

        long published = System.nanoTime();
        assertEquals(200, StandaloneServerIT.publish(leader, "watched", "v2").status());
        java.net.http.HttpResponse<String> answer = poll.get(10, TimeUnit.SECONDS);
        System.out.println("follower long-poll woke " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - published)
                + " ms after the publish through the leader was sent");
        assertEquals("watched%02DEFAULT_GROUP%01\n", answer.body());
        assertEquals(
                "v2", StandaloneServerIT.read(follower, "watched").body(), "the follower serves what it announced");
    }

    @Test
    void leaderKill9LosesNoAcknowledgedPublishAndWritesResume() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess leader = cluster.leader();
        Map<String, String> acknowledged = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong killedAt = new AtomicLong();
        AtomicLong firstAckAfterKill = new AtomicLong();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                for (int i = 0; running.get(); i++) {
                    ServerProcess target = nodes.get((writer + i) % 3);
                    if (!target.alive()) {
                        continue;
                    }
                    String dataId = "w" + writer + "-" + i;
                    try {
                        Http.Response r = StandaloneServerIT.publish(target, dataId, "v" + i);
                        if (r.status() == 200) {
                            acknowledged.put(dataId, "v" + i);
                            if (killedAt.get() != 0 && target != leader) {
                                firstAckAfterKill.compareAndSet(0, System.nanoTime());
                            }
                        }
                    } catch (Exception e) {
                        // not acknowledged: nothing to check for it
                    }
                }
            });
            t.start();
            writers.add(t);
        }
        Await.until(Duration.ofSeconds(30), "some writes before the kill", () -> acknowledged.size() >= 60);
        cluster.kill(leader);
        killedAt.set(System.nanoTime());
        Await.until(Duration.ofSeconds(30), "writes resume on a new leader", () -> firstAckAfterKill.get() != 0);
        long failoverMs = TimeUnit.NANOSECONDS.toMillis(firstAckAfterKill.get() - killedAt.get());
        System.out.println("failover: first acknowledged publish " + failoverMs + " ms after kill -9 of the leader");
        int before = acknowledged.size();
        Await.until(Duration.ofSeconds(30), "more writes after the failover", () -> acknowledged.size() >= before + 60);
        running.set(false);
        for (Thread t : writers) {
            t.join(30_000);
        }

        cluster.start(leader);
        for (ServerProcess p : nodes) {
            for (Map.Entry<String, String> e : acknowledged.entrySet()) {
                String key = e.getKey();
                Await.until(
                        Duration.ofSeconds(20),
                        key + " on " + p.httpAddress(),
                        () -> e.getValue()
                                .equals(StandaloneServerIT.read(p, key).body()));
            }
        }
        Await.until(Duration.ofSeconds(20), "identical revision on every node", () -> {
            Set<Long> revisions = new HashSet<>();
            for (ServerProcess p : nodes) {
                revisions.add(p.revision());
            }
            return revisions.size() == 1;
        });
        assertTrue(failoverMs < 15_000, "failover took " + failoverMs + " ms");
    }
}
