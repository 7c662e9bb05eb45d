package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Network partitions between real processes, each node in its own network namespace (see {@link
 * NetworkLab}; packets are dropped silently, as in a real partition): the side with a majority
 * keeps taking writes, the minority refuses them within the request timeout with a 5xx that says
 * why, and once healed the minority serves every acknowledged write.
 */
class PartitionIT {
    /** The server's write request timeout: how long a write may wait for a leader and a commit. */
    static final long REQUEST_TIMEOUT_MS = 5_000;
    /** Scheduling slack on a shared 2-core machine on top of the request timeout. */
    static final long MARGIN_MS = 2_500;

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    record Attempt(String dataId, long millis, int status, String body) {}

    /** One publish to {@code p}, timed; a transport failure is status -1. */
    static Attempt attemptPublish(ServerProcess p, String dataId) {
        long start = System.nanoTime();
        int status;
        String body;
        try {
            Http.Response r = ConfigApi.publish(p, dataId, "content of " + dataId);
            status = r.status();
            body = r.body();
        } catch (Exception e) {
            status = -1;
            body = e.toString();
        }
        return new Attempt(dataId, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), status, body);
    }

    static CompletableFuture<Attempt> attemptPublishAsync(ServerProcess p, String dataId) {
        return CompletableFuture.supplyAsync(() -> attemptPublish(p, dataId));
    }

    static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    static void assertFailsWithinRequestTimeout(Attempt a) {
        assertTrue(a.status() == 503 || a.status() == 504, "a 503 or 504, got " + a);
        assertTrue(a.millis() <= REQUEST_TIMEOUT_MS + MARGIN_MS, "answered in " + a.millis() + " ms: " + a);
    }

    static Attempt await(CompletableFuture<Attempt> attempt) throws Exception {
        return attempt.get(REQUEST_TIMEOUT_MS + MARGIN_MS + 10_000, TimeUnit.MILLISECONDS);
    }

    /** After the faults: every node serves every acknowledged publish, with identical revisions and configs. */
    void assertConvergedWithEveryAcknowledgedPublish(List<ServerProcess> nodes, Map<String, String> acknowledged)
            throws Exception {
        cluster.awaitConverged(Duration.ofSeconds(40));
        for (ServerProcess p : nodes) {
            ConfigApi.awaitServes(p, acknowledged, Duration.ofSeconds(20));
        }
        assertEquals(1, nodes.stream().map(ServerProcess::revision).distinct().count(), "identical revisions");
        assertEquals(1, nodes.stream().map(ConfigApi::configDigest).distinct().count(), "identical configs");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anIsolatedFollowerRefusesPublishesFastWhileTheMajorityKeepsWritingAndCatchesUpAfterHealing() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        ServerProcess leader = cluster.leader();
        ServerProcess minority = cluster.othersThan(leader).get(0);
        List<ServerProcess> majority = cluster.othersThan(minority);

        try (PublishLoad load = new PublishLoad("majority", 2, () -> majority).start()) {
            Await.until(Duration.ofSeconds(20), "writes before the partition", () -> load.acknowledgedCount() >= 20);
            long isolatedAt = System.nanoTime();
            cluster.isolate(minority);
            System.out.println("isolated " + minority + " from " + majority);
            // Right after the cut the minority still believes in its leader: it forwards the write,
            // which is never answered, so its outcome is unknown (504) - or no leader takes it (503).
            CompletableFuture<Attempt> first = attemptPublishAsync(minority, "minority-0");
            long leaderLostMs = Await.firstTime(
                            Duration.ofSeconds(15),
                            minority + " notices it has no leader",
                            isolatedAt,
                            () -> minority.view().path("leader").isNull())
                    .get();
            System.out.println(minority + " lost its leader " + leaderLostMs + " ms after the cut");
            Attempt a0 = await(first);
            System.out.println("publish to the minority sent right after the cut: " + a0.status() + " in " + a0.millis()
                    + " ms: " + a0.body());
            assertFailsWithinRequestTimeout(a0);

            assertEquals(
                    503,
                    Http.get(minority.httpAddress(), "/nacos/v1/console/health/readiness")
                            .status(),
                    "a node without a leader is not ready");
            Attempt a1 = attemptPublish(minority, "minority-1");
            System.out.println(
                    "publish to the leaderless minority: " + a1.status() + " in " + a1.millis() + " ms: " + a1.body());
            assertEquals(503, a1.status(), "a leaderless node refuses: nothing written " + a1);
            assertTrue(a1.body().contains("no leader"), "the body says why: " + a1.body());
            assertTrue(a1.millis() <= REQUEST_TIMEOUT_MS + MARGIN_MS, "answered in " + a1.millis() + " ms");

            int beforeCheck = load.acknowledgedCount();
            Await.until(
                    Duration.ofSeconds(20),
                    "the majority keeps acknowledging publishes",
                    () -> load.acknowledgedCount() >= beforeCheck + 50);
            assertEquals(
                    leader,
                    LodestarCluster.selfDeclaredLeader(majority),
                    "the leader on the majority side kept leading");

            long healedAt = System.nanoTime();
            cluster.heal();
            Map<String, String> acknowledgedAtHeal = load.acknowledged();
            CompletableFuture<Long> knowsLeader = Await.firstTime(
                    Duration.ofSeconds(30),
                    minority + " hears the leader",
                    healedAt,
                    () -> leader.raftAddress()
                            .equals(minority.view().path("leader").asText()));
            ConfigApi.awaitServes(minority, acknowledgedAtHeal, Duration.ofSeconds(40));
            System.out.println("after healing, " + minority + " heard the leader in " + knowsLeader.get()
                    + " ms and served all " + acknowledgedAtHeal.size() + " publishes acknowledged until then in "
                    + millisSince(healedAt) + " ms");
            load.close();
            System.out.println("publishes through the majority: " + load.statusCounts());

            assertConvergedWithEveryAcknowledgedPublish(nodes, load.acknowledged());
            for (ServerProcess p : nodes) {
                assertEquals(404, ConfigApi.read(p, a1.dataId()).status(), "the 503 publish was not written, on " + p);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void anIsolatedLeaderStepsDownTheMajorityElectsAnotherAndWhatTheOldOneTookAloneIsDiscarded() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        ServerProcess oldLeader = cluster.leader();
        List<ServerProcess> majority = cluster.othersThan(oldLeader);

        try (PublishLoad load = new PublishLoad("followers", 2, () -> majority).start()) {
            Await.until(Duration.ofSeconds(20), "writes before the partition", () -> load.acknowledgedCount() >= 20);
            long isolatedAt = System.nanoTime();
            cluster.isolate(oldLeader);
            System.out.println("isolated the leader " + oldLeader + " from " + majority);
            CompletableFuture<Long> steppedDown = Await.firstTime(
                    Duration.ofSeconds(20),
                    oldLeader + " steps down",
                    isolatedAt,
                    () -> !oldLeader
                            .raftAddress()
                            .equals(oldLeader.view().path("leader").asText()));
            // Sent while it still believes it leads: appended to its own log only, never committed.
            CompletableFuture<Attempt> alone = attemptPublishAsync(oldLeader, "taken-alone");

            long electedMs = Await.firstTime(
                            Duration.ofSeconds(20), "a new leader on the majority side", isolatedAt, () -> {
                                ServerProcess l = LodestarCluster.selfDeclaredLeader(majority);
                                return l != null
                                        && l.raftAddress()
                                                .equals(majority.get(0)
                                                        .view()
                                                        .path("leader")
                                                        .asText())
                                        && l.raftAddress()
                                                .equals(majority.get(1)
                                                        .view()
                                                        .path("leader")
                                                        .asText());
                            })
                    .get();
            Await.until(
                    Duration.ofSeconds(20),
                    "a publish sent after the cut is acknowledged",
                    () -> load.firstAcknowledgedSentAfter(isolatedAt) != null);
            PublishLoad.Outcome resumed = load.firstAcknowledgedSentAfter(isolatedAt);
            System.out.println("failover: the old leader stepped down " + steppedDown.get()
                    + " ms after the cut, the majority"
                    + " agreed on a new leader after " + electedMs + " ms, and the first publish sent after the cut was"
                    + " acknowledged after " + TimeUnit.NANOSECONDS.toMillis(resumed.completedNanos() - isolatedAt)
                    + " ms");

            Attempt a = await(alone);
            System.out.println(
                    "publish to the isolated leader: " + a.status() + " in " + a.millis() + " ms: " + a.body());
            assertFailsWithinRequestTimeout(a);

            int beforeCheck = load.acknowledgedCount();
            Await.until(
                    Duration.ofSeconds(20),
                    "the majority keeps acknowledging publishes",
                    () -> load.acknowledgedCount() >= beforeCheck + 30);

            long healedAt = System.nanoTime();
            cluster.heal();
            ServerProcess newLeader = LodestarCluster.awaitLeader(majority, Duration.ofSeconds(10));
            Await.until(
                    Duration.ofSeconds(30),
                    oldLeader + " follows " + newLeader,
                    () -> newLeader
                            .raftAddress()
                            .equals(oldLeader.view().path("leader").asText()));
            System.out.println(oldLeader + " follows the new leader " + millisSince(healedAt) + " ms after healing");
            load.close();
            System.out.println("publishes through the followers: " + load.statusCounts());

            assertConvergedWithEveryAcknowledgedPublish(nodes, load.acknowledged());
            for (ServerProcess p : nodes) {
                assertEquals(
                        404,
                        ConfigApi.read(p, "taken-alone").status(),
                        "the deposed leader's uncommitted entry gave way to the new leader's log, on " + p);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aLeaderThatCannotReachOneFollowerKeepsTheGroupWritableAndTheFollowerCatchesUpAfterHealing() throws Exception {
        List<ServerProcess> nodes = cluster.startInNamespaces(3);
        ServerProcess leader = cluster.leader();
        List<ServerProcess> followers = cluster.othersThan(leader);
        ServerProcess unreached = followers.get(0);
        ServerProcess reached = followers.get(1);
        long term = leader.view().get("term").asLong();

        try (PublishLoad load = new PublishLoad("oneway", 2, () -> List.of(leader, reached)).start()) {
            Await.until(Duration.ofSeconds(20), "writes before the cut", () -> load.acknowledgedCount() >= 20);
            long cutAt = System.nanoTime();
            cluster.cut(leader, unreached);
            System.out.println("cut " + cluster.faults() + ": the leader's packets to " + unreached + " are dropped");
            Await.until(
                    Duration.ofSeconds(15),
                    unreached + " stops hearing from the leader",
                    () -> unreached.view().path("leader").isNull());
            System.out.println(unreached + " lost the leader " + millisSince(cutAt) + " ms after the cut");
            CompletableFuture<Attempt> viaUnreached = attemptPublishAsync(unreached, "via-unreached");
            int atNotice = load.acknowledgedCount();
            // Several election timeouts: the unreached follower's elections must not disturb the group.
            Await.until(
                    Duration.ofSeconds(30),
                    "publishes acknowledged while the link stays cut",
                    () -> load.acknowledgedCount() >= atNotice + 100 && millisSince(cutAt) >= 6_000);
            Attempt a = await(viaUnreached);
            System.out.println(
                    "publish through the unreached follower: " + a.status() + " in " + a.millis() + " ms: " + a.body());
            assertFailsWithinRequestTimeout(a);
            JsonNode leaderView = leader.view();
            List<PublishLoad.Outcome> whileCut = load.outcomes();
            System.out.println("while cut: leader " + leaderView.get("leader").asText() + " term "
                    + leaderView.get("term").asLong()
                    + " (term " + term + " before the cut); publishes through the leader and the reached follower: "
                    + PublishLoad.statusCounts(whileCut));
            assertEquals(leader.raftAddress(), leaderView.get("leader").asText(), "the leader kept leading");
            assertEquals(term, leaderView.get("term").asLong(), "no election disturbed the group (pre-vote)");
            assertEquals(
                    Map.of(200, whileCut.size()),
                    PublishLoad.statusCounts(whileCut),
                    "every publish through the leader or the reached follower was acknowledged");

            long healedAt = System.nanoTime();
            cluster.heal();
            Map<String, String> acknowledgedAtHeal = load.acknowledged();
            ConfigApi.awaitServes(unreached, acknowledgedAtHeal, Duration.ofSeconds(40));
            System.out.println("after healing, " + unreached + " served all " + acknowledgedAtHeal.size()
                    + " publishes acknowledged until then in " + millisSince(healedAt) + " ms");
            load.close();
            assertConvergedWithEveryAcknowledgedPublish(nodes, load.acknowledged());
        }
    }
}
