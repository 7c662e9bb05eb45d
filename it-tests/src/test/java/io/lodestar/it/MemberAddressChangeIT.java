package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A member comes back from a restart with a new IP address, Nacos's most common way to lose its
 * Raft group. Here it rejoins by the documented steps (remove the old address, start on the new
 * one with its data dir, add the new address), keeping its data: it catches up from where it
 * was, with no snapshot to install, and serves what the others serve.
 */
class MemberAddressChangeIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aMemberWithANewAddressRejoinsWithItsData() throws Exception {
        cluster.startInNamespaces(3);
        ServerProcess leader = cluster.leader();
        ServerProcess moving = cluster.othersThan(leader).get(0);
        Map<String, String> published = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            published.put("before-" + i, "v" + i);
            assertEquals(200, ConfigApi.publish(leader, "before-" + i, "v" + i).status());
        }
        cluster.awaitConverged(Duration.ofSeconds(30));
        String oldAddress = moving.raftAddress();
        cluster.stop(moving);
        for (int i = 0; i < 20; i++) {
            published.put("while-away-" + i, "w" + i);
            assertEquals(
                    200, ConfigApi.publish(leader, "while-away-" + i, "w" + i).status());
        }

        Http.Response removed = Http.delete(leader.httpAddress(), "/lodestar/v1/cluster/members?address=" + oldAddress);
        assertEquals(200, removed.status(), removed.body());
        ServerProcess moved = cluster.readdress(moving);
        assertNotEquals(oldAddress, moved.raftAddress());
        moved.start();
        LodestarCluster.addMember(leader, moved);
        cluster.awaitConverged(Duration.ofSeconds(60));

        assertEquals(3, LodestarCluster.members(moved).size());
        assertFalse(LodestarCluster.members(moved).contains(oldAddress), "the old address is no member");
        ConfigApi.assertReadable(moved, published);
        String sinceMove = moved.logText().substring(moved.logText().lastIndexOf("=== start "));
        assertFalse(sinceMove.contains("installed snapshot"), "it caught up from its own data, not a snapshot");
        List<ServerProcess> group = new java.util.ArrayList<>(cluster.othersThan(leader));
        group.add(leader);
        List<String> digests = group.stream().map(ConfigApi::configDigest).toList();
        assertEquals(1, digests.stream().distinct().count(), "identical configs on every member");
        System.out.println(moving.name + " moved from " + oldAddress + " to " + moved.raftAddress()
                + " and rejoined with its data");
    }
}
