package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * SIGKILL of every node of a 3-node group at once, then a restart of all on their data dirs: every
 * kind of durable data written before comes back on every node, at identical revisions.
 *
 * <p>Each kind of durable data is one {@link DurableData}: it writes a sample through the group
 * and checks it on one node after the restart. The test runs every kind listed in {@link
 * #durableData()}; a new kind of Raft-replicated data (persistent naming instances, users) is one
 * more implementation added to that list.
 */
class FullClusterRestartIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** One kind of durable data: written before the crash, checked on every node after the restart. */
    interface DurableData {
        /** Writes a sample through the nodes (round robin: followers forward) and remembers what was acknowledged. */
        void write(List<ServerProcess> nodes) throws Exception;

        /** Fails unless {@code node} serves exactly what {@link #write} had acknowledged. */
        void assertIntact(ServerProcess node) throws Exception;
    }

    /** Every kind of durable data the server has today. */
    static List<DurableData> durableData() {
        return List.of(new ConfigsWithHistory(), new Namespaces(), new PersistentInstances());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void killingEveryNodeAtOnceLosesNothingAcknowledged() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        List<DurableData> data = durableData();
        for (DurableData d : data) {
            d.write(nodes);
        }
        cluster.awaitConverged(Duration.ofSeconds(30));
        long revisionBefore = nodes.get(0).revision();

        cluster.killAll();
        long restartedAt = System.nanoTime();
        cluster.startAll();
        cluster.awaitConverged(Duration.ofSeconds(30));
        System.out.println("after kill -9 of all 3 nodes: converged again "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartedAt) + " ms after the restart");

        for (ServerProcess p : nodes) {
            for (DurableData d : data) {
                d.assertIntact(p);
            }
        }
        List<Long> revisions = nodes.stream().map(ServerProcess::revision).toList();
        System.out.println("revision before the kill " + revisionBefore + ", after the restart " + revisions);
        assertEquals(
                List.of(revisionBefore, revisionBefore, revisionBefore),
                revisions,
                "every node back at the revision of the last write, nothing lost or applied twice");
        assertEquals(
                1, nodes.stream().map(ConfigApi::configDigest).distinct().count(), "identical configs on every node");
    }

    /** Configs in the public namespace, each published twice: the content and both history entries survive. */
    static final class ConfigsWithHistory implements DurableData {
        private static final int CONFIGS = 20;
        /** dataId -> history entries, newest first, as "id opType md5-of-recorded-content". */
        private final Map<String, List<String>> histories = new LinkedHashMap<>();

        @Override
        public void write(List<ServerProcess> nodes) throws Exception {
            int n = 0;
            for (int i = 0; i < CONFIGS; i++) {
                for (String version : List.of("v1", "v2")) {
                    Http.Response r = ConfigApi.publish(
                            nodes.get(n++ % nodes.size()), "durable-" + i, version + " of durable-" + i);
                    assertEquals(200, r.status(), r.body());
                }
            }
            ServerProcess reader = nodes.get(0);
            ConfigApi.awaitServes(reader, expected(), Duration.ofSeconds(20));
            for (int i = 0; i < CONFIGS; i++) {
                histories.put("durable-" + i, history(reader, "durable-" + i));
            }
        }

        private static Map<String, String> expected() {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < CONFIGS; i++) {
                m.put("durable-" + i, "v2 of durable-" + i);
            }
            return m;
        }

        private static List<String> history(ServerProcess p, String dataId) throws Exception {
            List<String> entries = new ArrayList<>();
            for (JsonNode item : ConfigHistoryIT.history(p, dataId).get("pageItems")) {
                JsonNode detail = Http.json(
                        p.httpAddress(),
                        "/nacos/v1/cs/history?"
                                + Http.query(params(
                                        "nid", item.get("id").asText(), "dataId", dataId, "group", ConfigApi.GROUP)));
                entries.add(item.get("id").asText() + " "
                        + item.get("opType").asText().trim() + " "
                        + detail.get("md5").asText());
            }
            return entries;
        }

        @Override
        public void assertIntact(ServerProcess node) throws Exception {
            ConfigApi.assertReadable(node, expected());
            for (Map.Entry<String, List<String>> e : histories.entrySet()) {
                List<String> entries = history(node, e.getKey());
                assertEquals(e.getValue(), entries, "history of " + e.getKey() + " on " + node);
                assertEquals(2, entries.size(), "two publishes, two entries: " + entries);
                // The update records the content it replaced (Nacos semantics), the insert its own.
                String v1 = ConfigApi.md5("v1 of " + e.getKey());
                assertEquals(
                        List.of("U " + v1, "I " + v1),
                        entries.stream()
                                .map(s -> s.substring(s.indexOf(' ') + 1))
                                .toList());
            }
        }
    }

    /** Namespaces with names and descriptions, one of them holding configs. */
    static final class Namespaces implements DurableData {
        private static final List<String> IDS = List.of("durable-ns-a", "durable-ns-b", "durable-ns-c");

        @Override
        public void write(List<ServerProcess> nodes) throws Exception {
            for (int i = 0; i < IDS.size(); i++) {
                Http.Response r = Http.postForm(
                        nodes.get(i % nodes.size()).httpAddress(),
                        "/nacos/v1/console/namespaces",
                        params(
                                "customNamespaceId",
                                IDS.get(i),
                                "namespaceName",
                                "name of " + IDS.get(i),
                                "namespaceDesc",
                                "desc of " + IDS.get(i)));
                assertEquals(200, r.status(), r.body());
                assertEquals("true", r.body());
            }
            for (int i = 0; i < 3; i++) {
                Http.Response r = Http.postForm(
                        nodes.get(i).httpAddress(),
                        ConfigApi.CONFIGS,
                        params(
                                "dataId",
                                "in-ns-" + i,
                                "group",
                                ConfigApi.GROUP,
                                "tenant",
                                IDS.get(0),
                                "content",
                                "content " + i + " in " + IDS.get(0)));
                assertEquals(200, r.status(), r.body());
            }
        }

        @Override
        public void assertIntact(ServerProcess node) throws Exception {
            Map<String, JsonNode> byId = new LinkedHashMap<>();
            for (JsonNode ns : Http.json(node.httpAddress(), "/nacos/v1/console/namespaces")
                    .get("data")) {
                byId.put(ns.get("namespace").asText(), ns);
            }
            for (String id : IDS) {
                JsonNode ns = byId.get(id);
                assertEquals(
                        "name of " + id,
                        ns == null ? null : ns.get("namespaceShowName").asText(),
                        id + " on " + node);
                assertEquals("desc of " + id, ns.get("namespaceDesc").asText(), id + " on " + node);
                assertEquals(
                        id.equals(IDS.get(0)) ? 3 : 0,
                        ns.get("configCount").asInt(),
                        "configs in " + id + " on " + node);
            }
            for (int i = 0; i < 3; i++) {
                Http.Response r = Http.get(
                        node.httpAddress(),
                        ConfigApi.CONFIGS + "?"
                                + Http.query(params(
                                        "dataId", "in-ns-" + i, "group", ConfigApi.GROUP, "tenant", IDS.get(0))));
                assertEquals(200, r.status(), "in-ns-" + i + " on " + node);
                assertEquals("content " + i + " in " + IDS.get(0), r.body());
            }
        }
    }

    /**
     * Persistent instances (Raft) with weights and metadata, in a cluster whose checker is NONE (no
     * probe flips their health while the revisions are compared).
     */
    static final class PersistentInstances implements DurableData {
        private static final String SERVICE = "durable-svc";

        @Override
        public void write(List<ServerProcess> nodes) throws Exception {
            Http.Response created = Http.postForm(
                    nodes.get(1).httpAddress(),
                    "/nacos/v1/ns/service",
                    params("serviceName", SERVICE, "protectThreshold", "0"));
            assertEquals(200, created.status(), created.body());
            Http.Response none = Http.send(
                    nodes.get(0).httpAddress(),
                    "PUT",
                    "/nacos/v1/ns/cluster",
                    params("serviceName", SERVICE, "clusterName", "DEFAULT", "healthChecker", "{\"type\":\"NONE\"}"));
            assertEquals(200, none.status(), none.body());
            for (int i = 0; i < 6; i++) {
                Http.Response r = Http.postForm(
                        nodes.get(i % nodes.size()).httpAddress(),
                        "/nacos/v1/ns/instance",
                        params(
                                "serviceName",
                                SERVICE,
                                "ip",
                                "127.9.0." + (i + 1),
                                "port",
                                "8080",
                                "ephemeral",
                                "false",
                                "weight",
                                String.valueOf(i + 1),
                                "metadata",
                                "{\"zone\":\"z" + i + "\"}"));
                assertEquals(200, r.status(), r.body());
            }
        }

        @Override
        public void assertIntact(ServerProcess node) throws Exception {
            JsonNode list = Http.json(node.httpAddress(), "/nacos/v1/ns/instance/list?serviceName=" + SERVICE);
            Map<String, String> seen = new LinkedHashMap<>();
            for (JsonNode h : list.get("hosts")) {
                seen.put(
                        h.get("ip").asText(),
                        h.get("weight").asDouble() + "/"
                                + h.get("metadata").get("zone").asText() + "/"
                                + h.get("ephemeral").asBoolean());
            }
            Map<String, String> expected = new LinkedHashMap<>();
            for (int i = 0; i < 6; i++) {
                expected.put("127.9.0." + (i + 1), (double) (i + 1) + "/z" + i + "/false");
            }
            assertEquals(
                    new java.util.TreeMap<>(expected),
                    new java.util.TreeMap<>(seen),
                    "persistent instances on " + node);
        }
    }
}
