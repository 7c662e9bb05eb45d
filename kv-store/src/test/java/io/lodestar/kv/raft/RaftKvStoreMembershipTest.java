package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.testing.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Membership changes at run time, asked of any member. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftKvStoreMembershipTest {
    @TempDir
    Path dir;

    @Test
    void aMemberAddedThroughAFollowerCatchesUpVotesAndCanBeRemovedAgain() throws Exception {
        AtomicReference<List<String>> founders = new AtomicReference<>();
        // nodes 0-2 found the group; node 3 starts later, knowing the group and itself
        TestCluster c = TestCluster.create(dir, 4, (i, cfg) -> i < 3 ? withPeers(cfg, founders.get()) : cfg);
        try (c) {
            founders.set(List.of(c.peer(0), c.peer(1), c.peer(2)));
            for (int i = 0; i < 3; i++) {
                c.startNode(i);
            }
            int leader = c.awaitLeader();
            int follower = (leader + 1) % 3;
            c.put(leader, "before", "v1");

            c.startNode(3);
            c.node(follower).admin().addMember(c.peer(3)).get(30, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(20), "the new member to catch up", () -> "v1".equals(c.value(3, "before")));
            c.put(leader, "after", "v2");
            Await.until(Duration.ofSeconds(20), "the new member to replicate", () -> "v2".equals(c.value(3, "after")));
            for (int i = 0; i < 4; i++) {
                ClusterView v = c.node(i).cluster();
                assertEquals(4, v.members().size(), "node " + i + " sees four members: " + v.members());
            }

            ExecutionException twice = assertThrows(
                    ExecutionException.class,
                    () -> c.node(leader).admin().addMember(c.peer(3)).get(10, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRequestException.class, twice.getCause());

            c.node(follower).admin().removeMember(c.peer(3)).get(30, TimeUnit.SECONDS);
            Await.until(
                    Duration.ofSeconds(20),
                    "the leader to drop the member",
                    () -> c.node(leader).cluster().members().size() == 3);
            c.stopNode(3);
            c.put(leader, "without-3", "v3"); // the three founders are a quorum again on their own
            assertTrue(c.node(leader).cluster().members().stream()
                    .noneMatch(m -> m.address().equals(c.peer(3))));
        }
    }

    @Test
    void leadershipMovesToTheMemberAskedFor() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitLeader();
            int target = (leader + 2) % 3;
            c.node((leader + 1) % 3).admin().transferLeadership(c.peer(target)).get(30, TimeUnit.SECONDS);
            Await.until(
                    Duration.ofSeconds(20),
                    "leadership to move to " + c.peer(target),
                    () -> c.peer(target).equals(c.node(leader).cluster().leader()));
            ExecutionException bad = assertThrows(
                    ExecutionException.class,
                    () -> c.node(leader)
                            .admin()
                            .transferLeadership("not-an-address")
                            .get(10, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRequestException.class, bad.getCause());
        }
    }

    private static KvStoreConfig withPeers(KvStoreConfig c, List<String> peers) {
        return new KvStoreConfig(
                c.host(),
                c.raftPort(),
                peers,
                c.dataDir(),
                c.clusterSecret(),
                c.keyspaces(),
                c.httpAddress(),
                c.snapshotIntervalSecs(),
                c.snapshotEntries(),
                c.snapshotBytes(),
                c.diskReserveBytes(),
                c.electionTimeoutMs(),
                c.requestTimeoutMs(),
                c.maxValueBytes(),
                c.blockCacheBytes(),
                c.raftPortSettings(),
                c.counting(),
                c.forceNewCluster());
    }
}
