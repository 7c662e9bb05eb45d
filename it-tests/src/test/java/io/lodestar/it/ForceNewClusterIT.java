package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The group loses two of its three members for good. The survivor cannot serve writes (no
 * quorum) and says why; restarted with {@code --force-new-cluster} it serves again as a group of
 * one with every write acknowledged before the loss, and two fresh members added back catch up
 * to identical data. Nothing is deleted on the survivor.
 */
class ForceNewClusterIT {
    private static final Pattern CONTACT_AGE =
            Pattern.compile("(?m)^lodestar_raft_leader_contact_age_seconds\\S* ([0-9.E]+)$");

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aSurvivorOfALostMajorityServesAgainWithEveryAcknowledgedWrite() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        // the leader holds every committed entry: the survivor an operator picks by its applied index
        ServerProcess survivor = cluster.leader();
        List<ServerProcess> lost = cluster.othersThan(survivor);

        Map<String, String> acknowledged;
        try (PublishLoad load = new PublishLoad("lost", 2, () -> List.of(survivor), Duration.ofSeconds(8)).start()) {
            Await.until(Duration.ofSeconds(30), "publishes before the loss", () -> load.acknowledgedCount() >= 200);
            lost.forEach(cluster::kill);
            // let in-flight publishes settle: each is acknowledged or refused once its deadline passed
            Await.until(
                    Duration.ofSeconds(30),
                    "the survivor to see no leader",
                    () -> !survivor.view().path("noLeaderSince").isNull());
            load.close();
            acknowledged = load.acknowledged();
            System.out.println("before the loss: " + load.statusCounts());
        }

        Http.Response refused = ConfigApi.publish(survivor, "after-loss", "x");
        assertEquals(503, refused.status(), "a write without a quorum is refused: " + refused.body());
        Http.Response readiness = Http.get(survivor.httpAddress(), "/nacos/v1/console/health/readiness");
        assertEquals(503, readiness.status());
        for (ServerProcess l : lost) {
            Await.until(
                    Duration.ofSeconds(15),
                    "readiness naming " + l + " unreachable",
                    () -> Http.get(survivor.httpAddress(), "/nacos/v1/console/health/readiness")
                            .body()
                            .contains(l.raftAddress()));
        }
        String reason = Http.get(survivor.httpAddress(), "/nacos/v1/console/health/readiness")
                .body();
        assertTrue(reason.contains("no leader since"), reason);
        Await.until(
                Duration.ofSeconds(15), "the leader-contact metric past 2 s", () -> contactAgeSeconds(survivor) >= 2);
        System.out.println("survivor while alone: readiness '" + reason + "'");

        long start = System.nanoTime();
        survivor.kill();
        survivor.withArgsOnce("--force-new-cluster").start();
        survivor.awaitReady();
        System.out.println(
                "forced new cluster ready in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        String log = survivor.logText().substring(survivor.logText().lastIndexOf("=== start "));
        assertTrue(log.contains("FORCED NEW CLUSTER"), "the start-up log says what was done");
        for (ServerProcess l : lost) {
            assertTrue(
                    log.matches("(?s).*members dropped: \\[[^\\]]*" + Pattern.quote(l.raftAddress()) + ".*"),
                    "the log names the dropped member " + l);
        }
        cluster.regroup(List.of(survivor));
        ConfigApi.assertReadable(survivor, acknowledged);
        assertEquals(200, ConfigApi.publish(survivor, "after-recovery", "back").status());
        assertEquals(
                List.of(survivor.raftAddress()), LodestarCluster.members(survivor), "the survivor alone is the group");
        assertTrue(contactAgeSeconds(survivor) < 2, "the leader-contact metric is back under 2 s");

        // a restart without the flag keeps the one-member group: the change is in the log
        cluster.restart(survivor);
        assertEquals(200, ConfigApi.publish(survivor, "after-restart", "still").status());

        ServerProcess fresh1 = cluster.newMember("fresh1", List.of(survivor));
        fresh1.start();
        LodestarCluster.addMember(survivor, fresh1);
        ServerProcess fresh2 = cluster.newMember("fresh2", List.of(survivor, fresh1));
        fresh2.start();
        LodestarCluster.addMember(survivor, fresh2);
        List<ServerProcess> group = List.of(survivor, fresh1, fresh2);
        cluster.regroup(group);
        cluster.awaitConverged(Duration.ofSeconds(60));
        acknowledged.put("after-recovery", "back");
        acknowledged.put("after-restart", "still");
        for (ServerProcess p : group) {
            ConfigApi.awaitServes(p, acknowledged, Duration.ofSeconds(30));
        }
        List<String> digests = group.stream().map(ConfigApi::configDigest).toList();
        assertEquals(1, digests.stream().distinct().count(), "identical configs on every member: " + digests);
        assertEquals(3, LodestarCluster.members(fresh2).size());
        System.out.println(acknowledged.size() + " acknowledged configs on the new group of 3; dropped " + lost);
    }

    private static double contactAgeSeconds(ServerProcess p) throws Exception {
        Matcher m = CONTACT_AGE.matcher(Http.get(p.httpAddress(), "/metrics").body());
        assertTrue(m.find(), "/metrics carries lodestar_raft_leader_contact_age_seconds");
        return Double.parseDouble(m.group(1));
    }
}
