package io.lodestar.api.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.client.Call;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.migrate.Items.Beta;
import io.lodestar.api.cli.migrate.Items.Cluster;
import io.lodestar.api.cli.migrate.Items.Config;
import io.lodestar.api.cli.migrate.Items.ConfigKey;
import io.lodestar.api.cli.migrate.Items.Instance;
import io.lodestar.api.cli.migrate.Items.Namespace;
import io.lodestar.api.cli.migrate.Items.Permission;
import io.lodestar.api.cli.migrate.Items.RoleBinding;
import io.lodestar.api.cli.migrate.Items.Service;
import io.lodestar.api.cli.migrate.Items.ServiceKey;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Lodestar being filled, through the same HTTP API as the other verbs: reads of what it holds
 * (to compare) and the writes that copy an item. Reading through {@link NacosV1Reader} (Lodestar
 * serves the v1 API) keeps the two sides' items in one shape. A write that the server refuses is a
 * {@link io.lodestar.api.cli.client.CommandFailure} with its message, for the caller to report
 * against the item. Writes never delete anything.
 */
final class LodestarTarget {
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final String SERVICE = "/nacos/v1/ns/service";

    private final LodestarClient client;
    private final NacosV1Reader reader;
    /** The services of each namespace and group, read once. */
    private final Map<String, Set<String>> servicesByGroup = new HashMap<>();

    LodestarTarget(LodestarClient client) {
        this.client = client;
        this.reader = new NacosV1Reader(SourceHttp.over(client));
    }

    Map<String, Namespace> namespaces() throws IOException, InterruptedException {
        Map<String, Namespace> byId = new LinkedHashMap<>();
        for (Namespace n : reader.namespaces()) {
            byId.put(n.id(), n);
        }
        return byId;
    }

    void createNamespace(Namespace n) throws IOException, InterruptedException {
        String created = client.post("/nacos/v1/console/namespaces")
                .param("customNamespaceId", n.id())
                .param("namespaceName", n.name())
                .param("namespaceDesc", n.description())
                .ok()
                .text()
                .trim();
        if (!created.equals("true")) {
            throw new SourceHttp.SourceException("the target answered " + created + " (it exists already)");
        }
    }

    void updateNamespace(Namespace n) throws IOException, InterruptedException {
        client.put("/nacos/v1/console/namespaces")
                .param("namespace", n.id())
                .param("namespaceShowName", n.name())
                .param("namespaceDesc", n.description())
                .ok();
    }

    Optional<Config> config(ConfigKey key) throws IOException, InterruptedException {
        return reader.config(key);
    }

    void publish(Config c) throws IOException, InterruptedException {
        on(client.post(CONFIGS), c.key())
                .param("content", c.content())
                .param("type", c.type())
                .param("desc", absentIfEmpty(c.desc()))
                .param("config_tags", absentIfEmpty(c.joinedTags()))
                .param("appName", absentIfEmpty(c.appName()))
                .ok();
    }

    /** Nacos keeps an absent field as null and an empty one as empty: a copy leaves out what was not there. */
    private static String absentIfEmpty(String s) {
        return s.isEmpty() ? null : s;
    }

    Optional<Beta> beta(ConfigKey key) throws IOException, InterruptedException {
        return reader.beta(key);
    }

    void publishBeta(Beta b) throws IOException, InterruptedException {
        on(client.post(CONFIGS), b.key())
                .header("betaIps", b.ips())
                .param("content", b.content())
                .ok();
    }

    private static Call on(Call call, ConfigKey key) {
        return call.param("dataId", key.dataId()).param("group", key.group()).param("tenant", key.namespace());
    }

    Optional<Service> service(ServiceKey key) throws IOException, InterruptedException {
        String group = key.namespace() + "\n" + key.group();
        Set<String> names = servicesByGroup.get(group);
        if (names == null) {
            names = new HashSet<>();
            for (ServiceKey k : reader.services(key.namespace(), Set.of(key.group()))) {
                names.add(k.name());
            }
            servicesByGroup.put(group, names);
        }
        return names.contains(key.name()) ? Optional.of(reader.service(key)) : Optional.empty();
    }

    void createService(Service s) throws IOException, InterruptedException {
        serviceCall(client.post(SERVICE), s).ok();
        servicesByGroup
                .computeIfAbsent(s.key().namespace() + "\n" + s.key().group(), g -> new HashSet<>())
                .add(s.key().name());
    }

    void updateService(Service s) throws IOException, InterruptedException {
        serviceCall(client.put(SERVICE), s).ok();
    }

    private static Call serviceCall(Call call, Service s) throws IOException {
        return on(call, s.key())
                .param("protectThreshold", String.valueOf(s.protectThreshold()))
                .param("metadata", Json.MAPPER.writeValueAsString(s.metadata()));
    }

    void updateCluster(ServiceKey key, String name, Cluster c) throws IOException, InterruptedException {
        Map<String, Object> checker = new LinkedHashMap<>();
        checker.put("type", c.type());
        if (c.type().equals("HTTP")) {
            checker.put("path", c.path());
            checker.put("expectedResponseCode", c.expectedCodes());
        }
        on(client.put("/nacos/v1/ns/cluster"), key)
                .param("clusterName", name)
                .param("healthChecker", Json.MAPPER.writeValueAsString(checker))
                .param("checkPort", String.valueOf(c.checkPort()))
                .param("useInstancePort4Check", String.valueOf(c.useInstancePort()))
                .ok();
    }

    /** The service's instances by {@link Instance#address()}, every cluster's. */
    Map<String, Instance> instances(ServiceKey key) throws IOException, InterruptedException {
        Map<String, Instance> byAddress = new HashMap<>();
        for (int page = 1; ; page++) {
            JsonNode answer = on(client.get("/nacos/v1/ns/catalog/instances"), key)
                    .param("pageNo", String.valueOf(page))
                    .param("pageSize", "1000")
                    .ok()
                    .json();
            for (JsonNode i : answer.path("list")) {
                Instance instance = NacosJson.instance(key, i);
                byAddress.put(instance.address(), instance);
            }
            if (answer.path("list").size() < 1000) {
                return byAddress;
            }
        }
    }

    /** Registers (or replaces) the instance as a persistent one. */
    void register(Instance i) throws IOException, InterruptedException {
        on(client.post("/nacos/v1/ns/instance"), i.service())
                .param("clusterName", i.cluster())
                .param("ip", i.ip())
                .param("port", String.valueOf(i.port()))
                .param("weight", String.valueOf(i.weight()))
                .param("enabled", String.valueOf(i.enabled()))
                .param("healthy", String.valueOf(i.healthy()))
                .param("ephemeral", "false")
                .param("metadata", Json.MAPPER.writeValueAsString(i.metadata()))
                .ok();
    }

    private static Call on(Call call, ServiceKey key) {
        return call.param("serviceName", key.name())
                .param("groupName", key.group())
                .param("namespaceId", key.namespace());
    }

    Set<Items.User> users() throws IOException, InterruptedException {
        return new HashSet<>(reader.users().orElse(List.of()));
    }

    void createUser(String username, String password) throws IOException, InterruptedException {
        client.post("/nacos/v1/auth/users")
                .param("username", username)
                .param("password", password)
                .ok();
    }

    Set<RoleBinding> roles() throws IOException, InterruptedException {
        return new HashSet<>(reader.roles().orElse(List.of()));
    }

    void bind(RoleBinding b) throws IOException, InterruptedException {
        client.post("/nacos/v1/auth/roles")
                .param("role", b.role())
                .param("username", b.username())
                .ok();
    }

    Set<Permission> permissions() throws IOException, InterruptedException {
        return new HashSet<>(reader.permissions().orElse(List.of()));
    }

    void grant(Permission p) throws IOException, InterruptedException {
        client.post("/nacos/v1/auth/permissions")
                .param("role", p.role())
                .param("resource", p.resource())
                .param("action", p.action())
                .ok();
    }
}
