package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A crash between the state machine's RocksDB write and anything after it (acknowledgement,
 * snapshot) loses nothing and applies nothing twice: on restart JRaft replays its log and the
 * store skips the entries it already holds.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CrashRecoveryIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void crashAfterApplyWriteLosesAndDuplicatesNothing() throws Exception {
        int crashAtBatch = 8;
        ServerProcess p =
                cluster.standalone("crashy").withJvmArgs("-Dlodestar.crashpoint=after-apply-write:" + crashAtBatch);
        cluster.start(p);
        List<String> acknowledged = new ArrayList<>();
        String inFlight = null;
        for (int i = 0; i < 100; i++) {
            String dataId = "c" + i;
            Http.Response r;
            try {
                r = StandaloneServerIT.publish(p, dataId, "value-" + i);
            } catch (java.io.IOException e) {
                inFlight = dataId;
                break;
            }
            if (r.status() != 200) {
                inFlight = dataId;
                break;
            }
            acknowledged.add(dataId);
        }
        assertTrue(inFlight != null, "the crash point should have stopped the server");
        assertEquals(137, p.waitExit(Duration.ofSeconds(30)), "halted at the crash point");
        assertTrue(p.logText().contains("crash point after-apply-write reached"));

        cluster.start(p);
        for (String dataId : acknowledged) {
            assertEquals(
                    "value-" + dataId.substring(1),
                    StandaloneServerIT.read(p, dataId).body(),
                    dataId);
        }
        // The entry being applied at the crash reached RocksDB and the Raft log: it is there, once.
        assertEquals(200, StandaloneServerIT.read(p, inFlight).status(), inFlight + " was written before the crash");
        long configs = acknowledged.size() + 1;
        // The node writes its HTTP address and the group's id into the store once each, within a
        // second of being ready: in the first life when the crash comes later, else in the second.
        // Count them once they are there.
        long nodeWrites = 2;
        p.awaitSettled();
        Await.until(
                Duration.ofSeconds(10),
                "the group's id written",
                () -> !p.view().path("clusterId").asText().isEmpty());
        long revision = p.view().get("revision").asLong();
        assertEquals(configs + nodeWrites, revision, "each applied command counted exactly once");
    }
}
