package io.lodestar.api.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.migrate.Items.Cluster;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import java.util.LinkedHashMap;
import java.util.Map;

/** Fields both Nacos APIs write alike (instances, health checkers, metadata), read leniently. */
final class NacosJson {
    private NacosJson() {}

    /** A text field, or null when absent or JSON null. */
    static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** A map of strings: a JSON object, or null / absent as empty. */
    static Map<String, String> strings(JsonNode node) {
        Map<String, String> m = new LinkedHashMap<>();
        if (node != null && node.isObject()) {
            node.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
        }
        return m;
    }

    /**
     * A cluster's probe settings from its {@code healthChecker} object and the port settings,
     * which Lodestar writes inside the checker ({@code checkPort}, {@code useInstancePort4Check})
     * and Nacos beside it ({@code healthyCheckPort}, {@code useInstancePortForCheck}).
     */
    static Cluster cluster(JsonNode cluster) {
        JsonNode checker = cluster.path("healthChecker");
        JsonNode port = first(checker.get("checkPort"), cluster.get("healthyCheckPort"), cluster.get("checkPort"));
        JsonNode own = first(
                checker.get("useInstancePort4Check"),
                cluster.get("useInstancePortForCheck"),
                cluster.get("useInstancePort4Check"));
        return new Cluster(
                text(checker, "type"),
                text(checker, "path"),
                text(checker, "expectedResponseCode"),
                port == null ? Cluster.DEFAULT.checkPort() : port.asInt(),
                own == null ? Cluster.DEFAULT.useInstancePort() : own.asBoolean());
    }

    private static JsonNode first(JsonNode... nodes) {
        for (JsonNode n : nodes) {
            if (n != null && !n.isNull()) {
                return n;
            }
        }
        return null;
    }

    /** An instance as the v1 lists and v3's {@code Instance} write it. */
    static Instance instance(ServiceKey service, JsonNode i) {
        return new Instance(
                service,
                text(i, "clusterName"),
                i.path("ip").asText(),
                i.path("port").asInt(),
                i.path("weight").asDouble(1),
                i.path("enabled").asBoolean(true),
                i.path("healthy").asBoolean(true),
                i.path("ephemeral").asBoolean(true),
                strings(i.get("metadata")));
    }
}
