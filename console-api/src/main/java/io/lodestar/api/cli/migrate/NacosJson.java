package io.lodestar.api.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.migrate.Items.Cluster;
import io.lodestar.api.cli.migrate.Items.Config;
import io.lodestar.api.cli.migrate.Items.ConfigKey;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.Namespace;
import io.lodestar.api.cli.migrate.Items.Permission;
import io.lodestar.api.cli.migrate.Items.RoleBinding;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import io.lodestar.api.cli.migrate.Items.User;
import java.util.LinkedHashMap;
import java.util.Map;

/** What both Nacos APIs write alike (namespaces, configs, instances, health checkers, auth), read leniently. */
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

    /** A namespace as both APIs list it. */
    static Namespace namespace(JsonNode n) {
        return new Namespace(text(n, "namespace"), text(n, "namespaceShowName"), text(n, "namespaceDesc"));
    }

    /** A config's detail: v1's {@code ConfigAllInfo}, v3's {@code ConfigDetailInfo}. */
    static Config config(ConfigKey key, JsonNode c) {
        return new Config(
                key, text(c, "content"), text(c, "type"), text(c, "desc"), text(c, "configTags"), text(c, "appName"));
    }

    static User user(JsonNode u) {
        return new User(u.path("username").asText());
    }

    static RoleBinding role(JsonNode r) {
        return new RoleBinding(r.path("role").asText(), r.path("username").asText());
    }

    static Permission permission(JsonNode p) {
        return new Permission(
                p.path("role").asText(),
                p.path("resource").asText(),
                p.path("action").asText());
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
