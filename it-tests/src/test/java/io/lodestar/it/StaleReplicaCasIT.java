package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression test for a false compare-and-publish conflict found by {@link HistoryCheckIT}: a node
 * whose replica lags compares {@code casMd5} with its own copy and answers 409 "server md5 may have
 * changed" although the committed config's md5 is exactly {@code casMd5}. Nothing wrong is written
 * (a successful compare is still decided by the leader's log), but the 409 is a definite answer
 * that is false: the node cannot know the committed md5 and should forward the compare, or answer
 * 503/504 when it cannot.
 */
class StaleReplicaCasIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCompareAndPublishThroughALaggingNodeIsNotRefusedAsAConflictWhenTheCommittedMd5Matches() throws Exception {
        cluster.startInNamespaces(3);
        ServerProcess leader = cluster.leader();
        ServerProcess lagging = cluster.othersThan(leader).get(0);
        assertEquals(200, ConfigApi.publish(leader, "cas", "v1").status());
        ConfigApi.awaitServes(lagging, Map.of("cas", "v1"), Duration.ofSeconds(10));

        cluster.isolate(lagging);
        Http.Response v2 = ConfigApi.publish(leader, "cas", "v2");
        assertEquals(200, v2.status(), "the majority takes the write: " + v2.body());
        long start = System.nanoTime();
        Http.Response cas = Http.postForm(
                lagging.httpAddress(),
                ConfigApi.CONFIGS,
                params("dataId", "cas", "group", ConfigApi.GROUP, "content", "v3", "casMd5", ConfigApi.md5("v2")));
        System.out.println(
                "compare-and-publish from the committed md5 through the lagging " + lagging + ": " + cas.status()
                        + " in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + cas.body());
        assertNotEquals(409, cas.status(), "the committed md5 is casMd5: no conflict to report (" + cas.body() + ")");

        cluster.heal();
        ConfigApi.awaitServes(lagging, Map.of("cas", "v2"), Duration.ofSeconds(30));
        Http.Response retried = Http.postForm(
                lagging.httpAddress(),
                ConfigApi.CONFIGS,
                params("dataId", "cas", "group", ConfigApi.GROUP, "content", "v3", "casMd5", ConfigApi.md5("v2")));
        assertEquals(200, retried.status(), "once caught up, the same compare-and-publish succeeds: " + retried.body());
    }
}
