package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Quotas on a 3-node group of real processes: the leader decides for writes made through any
 * member, a follower answers its client's refusal (429 naming the quota) and counts it, and the
 * counts the quotas read survive a kill of every node: after the restart the quota still holds and
 * a delete still frees room.
 */
class QuotaIT {
    private static final String CONFIGS_LIMIT = "quota.configs-per-namespace";
    private static final String INSTANCES_LIMIT = "quota.instances-per-service";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private static Http.Response publish(ServerProcess p, String dataId) throws Exception {
        return Http.postForm(
                p.httpAddress(),
                ConfigApi.CONFIGS,
                params("tenant", "dev", "dataId", dataId, "group", ConfigApi.GROUP, "content", "v " + dataId));
    }

    private static Http.Response register(ServerProcess p, String ip) throws Exception {
        return Http.postForm(
                p.httpAddress(),
                "/nacos/v1/ns/instance",
                params("serviceName", "orders", "ip", ip, "port", "80", "ephemeral", "false"));
    }

    private static long refusals(ServerProcess p, String limit) throws Exception {
        String body = Http.get(p.httpAddress(), "/metrics").body();
        Matcher m = Pattern.compile(
                        "lodestar_limit_refusals_total\\{limit=\"" + Pattern.quote(limit) + "\"[^}]*} (\\S+)")
                .matcher(body);
        assertTrue(m.find(), "the metric of " + limit + " on " + p);
        return (long) Double.parseDouble(m.group(1));
    }

    private static void assertRefused(Http.Response r, String limit, int value) {
        assertEquals(429, r.status(), r.body());
        assertTrue(r.body().contains(limit + " (" + value + ")"), r.body());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void quotasHoldThroughEveryMemberAndAKillOfEveryNode() throws Exception {
        List<ServerProcess> nodes =
                cluster.start(3, "--limit", CONFIGS_LIMIT + "=3", "--limit", INSTANCES_LIMIT + "=2");
        ServerProcess follower = cluster.othersThan(cluster.leader()).get(0);
        for (int i = 0; i < 3; i++) {
            assertEquals(200, publish(nodes.get(i), "c" + i).status());
        }
        for (int i = 1; i <= 2; i++) {
            assertEquals(200, register(nodes.get(i), "10.0.0." + i).status());
        }

        assertRefused(publish(follower, "one-more"), CONFIGS_LIMIT, 3);
        assertRefused(register(follower, "10.0.0.9"), INSTANCES_LIMIT, 2);
        assertEquals(1, refusals(follower, CONFIGS_LIMIT), "counted where the client was answered");
        assertEquals(200, publish(follower, "c1").status(), "replacing a config at the quota");
        cluster.awaitConverged(Duration.ofSeconds(30));

        cluster.killAll();
        cluster.startAll();
        cluster.awaitConverged(Duration.ofSeconds(30));

        for (ServerProcess p : nodes) {
            assertRefused(publish(p, "after-restart"), CONFIGS_LIMIT, 3);
            assertRefused(register(p, "10.0.0.9"), INSTANCES_LIMIT, 2);
        }
        assertEquals(
                200,
                Http.delete(
                                follower.httpAddress(),
                                ConfigApi.CONFIGS + "?"
                                        + Http.query(params("tenant", "dev", "dataId", "c0", "group", ConfigApi.GROUP)))
                        .status());
        assertEquals(200, publish(follower, "after-restart").status(), "a delete frees room");
        assertEquals(
                200,
                Http.delete(
                                follower.httpAddress(),
                                "/nacos/v1/ns/instance?"
                                        + Http.query(params(
                                                "serviceName",
                                                "orders",
                                                "ip",
                                                "10.0.0.1",
                                                "port",
                                                "80",
                                                "ephemeral",
                                                "false")))
                        .status());
        assertEquals(200, register(follower, "10.0.0.9").status());
    }
}
