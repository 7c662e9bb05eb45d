package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SIGKILL of the leader of a 3-node group while clients publish through every node: the survivors
 * elect a leader and take writes again, and once the killed node is back every acknowledged
 * publish is on every node with its exact content, at identical revisions.
 */
class LeaderKillIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void killingTheLeaderMidStreamLosesNoAcknowledgedPublishAndWritesResumeThroughTheSurvivors() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess leader = cluster.leader();
        List<ServerProcess> survivors = cluster.othersThan(leader);

        try (PublishLoad load = new PublishLoad("kill", 4, () -> nodes).start()) {
            Await.until(Duration.ofSeconds(30), "publishes before the kill", () -> load.acknowledgedCount() >= 100);
            long killedAt = System.nanoTime();
            cluster.kill(leader);
            long newLeaderMs = Await.firstTime(
                            Duration.ofSeconds(30), "a new leader agreed on by the survivors", killedAt, () -> {
                                ServerProcess l = LodestarCluster.selfDeclaredLeader(survivors);
                                return l != null
                                        && l.raftAddress()
                                                .equals(survivors
                                                        .get(0)
                                                        .view()
                                                        .path("leader")
                                                        .asText())
                                        && l.raftAddress()
                                                .equals(survivors
                                                        .get(1)
                                                        .view()
                                                        .path("leader")
                                                        .asText());
                            })
                    .get();
            Await.until(
                    Duration.ofSeconds(30),
                    "a publish sent after the kill is acknowledged",
                    () -> load.firstAcknowledgedSentAfter(killedAt) != null);
            PublishLoad.Outcome resumed = load.firstAcknowledgedSentAfter(killedAt);
            long resumedMs = TimeUnit.NANOSECONDS.toMillis(resumed.completedNanos() - killedAt);
            System.out.println("failover after kill -9 of the leader " + leader + ": new leader "
                    + LodestarCluster.selfDeclaredLeader(survivors) + " in " + newLeaderMs
                    + " ms, first publish sent after the kill"
                    + " acknowledged in " + resumedMs + " ms (through " + resumed.target() + ")");

            int afterFailover = load.acknowledgedCount();
            Await.until(
                    Duration.ofSeconds(30),
                    "publishes through the survivors",
                    () -> load.acknowledgedCount() >= afterFailover + 100);
            long restartedAt = System.nanoTime();
            cluster.start(leader);
            System.out.println(leader + " ready again " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt)
                    + " ms after its restart on the same data dir");
            int afterRestart = load.acknowledgedCount();
            Await.until(
                    Duration.ofSeconds(30),
                    "publishes with the restarted node back",
                    () -> load.acknowledgedCount() >= afterRestart + 50);
            load.close();
            System.out.println("publishes: " + load.statusCounts()
                    + " (200 acknowledged, 503 refused, 504 unknown, -1 no answer)");
            assertTrue(
                    resumedMs < 15_000,
                    "writes resumed " + resumedMs + " ms after the kill (new leader after " + newLeaderMs
                            + " ms); the first publishes sent after it:" + load.timeline(killedAt, 40));

            Map<String, String> acknowledged = load.acknowledged();
            cluster.awaitConverged(Duration.ofSeconds(40));
            for (ServerProcess p : nodes) {
                ConfigApi.assertReadable(p, acknowledged);
            }
            List<Long> revisions = nodes.stream().map(ServerProcess::revision).toList();
            System.out.println("all " + acknowledged.size()
                    + " acknowledged publishes read back from every node; revisions " + revisions);
            assertEquals(1, revisions.stream().distinct().count(), "identical revisions on every node: " + revisions);
        }
    }
}
