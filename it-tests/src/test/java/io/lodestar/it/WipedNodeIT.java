package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node that lost its whole data dir and comes back with the same identity: the leader's log no
 * longer starts at index 1 (snapshots every 5 s compacted it), so the node can only catch up by
 * installing a snapshot, then the log after it; it then serves exactly what the others serve.
 */
class WipedNodeIT {
    private static final Pattern SNAPSHOT_SAVED = Pattern.compile("snapshot saved at applied index (\\d+)");
    private static final Pattern SNAPSHOT_INSTALLED =
            Pattern.compile("installed snapshot: applied index (\\d+), revision (\\d+)");

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** The applied indexes of the snapshots {@code p} saved, in log order. */
    static List<Long> snapshotsSaved(ServerProcess p) {
        List<Long> indexes = new ArrayList<>();
        Matcher m = SNAPSHOT_SAVED.matcher(p.logText());
        while (m.find()) {
            indexes.add(Long.parseLong(m.group(1)));
        }
        return indexes;
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aWipedNodeCatchesUpBySnapshotInstallAndServesIdenticalData() throws Exception {
        List<ServerProcess> nodes = cluster.start(3, "--snapshot-interval", "5");
        ServerProcess leader = cluster.leader();
        ServerProcess victim = cluster.othersThan(leader).get(0);

        try (PublishLoad load = new PublishLoad("wipe", 3, () -> nodes).start()) {
            Await.until(Duration.ofSeconds(30), "a first batch of publishes", () -> load.acknowledgedCount() >= 300);
            long firstBatchIndex = leader.view().get("appliedIndex").asLong();
            // JRaft truncates its log up to the snapshot before the last one: wait for two past the batch.
            Await.until(Duration.ofSeconds(40), "two leader snapshots past index " + firstBatchIndex, () -> {
                List<Long> saved = snapshotsSaved(leader);
                return saved.size() >= 2 && saved.get(saved.size() - 2) >= firstBatchIndex;
            });
            System.out.println("leader snapshots saved at applied indexes " + snapshotsSaved(leader)
                    + "; first batch ended at index " + firstBatchIndex);

            long wipedAt = System.nanoTime();
            cluster.wipe(victim);
            long readyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wipedAt);
            int afterRestart = load.acknowledgedCount();
            Await.until(
                    Duration.ofSeconds(30),
                    "publishes with the wiped node back",
                    () -> load.acknowledgedCount() >= afterRestart + 100);
            load.close();
            System.out.println("wiped " + victim + ": killed, wiped and ready again on an empty data dir in " + readyMs
                    + " ms; publishes " + load.statusCounts());

            String sinceRestart = victim.logText().substring(victim.logText().lastIndexOf("=== start "));
            Matcher installed = SNAPSHOT_INSTALLED.matcher(sinceRestart);
            assertTrue(installed.find(), victim + " caught up by installing the leader's snapshot (see its log)");
            System.out.println(victim + " installed a snapshot at applied index " + installed.group(1) + ", revision "
                    + installed.group(2));
            assertTrue(Long.parseLong(installed.group(1)) >= firstBatchIndex, "the snapshot covers the first batch");

            Map<String, String> acknowledged = load.acknowledged();
            cluster.awaitConverged(Duration.ofSeconds(40));
            for (ServerProcess p : nodes) {
                ConfigApi.awaitServes(p, acknowledged, Duration.ofSeconds(20));
            }
            List<String> digests = nodes.stream().map(ConfigApi::configDigest).toList();
            List<Long> revisions = nodes.stream().map(ServerProcess::revision).toList();
            System.out.println(
                    "after catch-up: " + acknowledged.size() + " acknowledged publishes on every node; config digests "
                            + digests.stream().map(d -> d.substring(0, 12)).toList() + ", revisions " + revisions);
            assertEquals(1, digests.stream().distinct().count(), "identical configs on every node");
            assertEquals(1, revisions.stream().distinct().count(), "identical revisions on every node");
        }
    }
}
