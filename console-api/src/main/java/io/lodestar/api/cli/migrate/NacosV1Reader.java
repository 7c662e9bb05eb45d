package io.lodestar.api.cli.migrate;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.lodestar.api.cli.migrate.Items.User;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Nacos 2.x (and 1.x, and Lodestar) through the v1 Open API and console API. Services are listed
 * across groups with the console's {@code /nacos/v1/ns/catalog/services}; a source without it
 * (Lodestar) is asked {@code /nacos/v1/ns/service/list} group by group. Instances come from the
 * console's {@code /nacos/v1/ns/catalog/instances} (disabled ones too), else from {@code
 * /nacos/v1/ns/instance/list} (enabled ones only).
 */
final class NacosV1Reader implements SourceReader {
    static final String LOGIN = "/nacos/v1/auth/users/login";
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final int PAGE = 100;

    private final SourceHttp http;

    NacosV1Reader(SourceHttp http) {
        this.http = http;
    }

    @Override
    public String describe() {
        return "Nacos v1 API";
    }

    @Override
    public List<Namespace> namespaces() throws IOException, InterruptedException {
        List<Namespace> all = new ArrayList<>();
        for (JsonNode n : http.get("/nacos/v1/console/namespaces", Map.of()).path("data")) {
            all.add(NacosJson.namespace(n));
        }
        return all;
    }

    @Override
    public List<ConfigKey> configKeys(String namespace) throws IOException, InterruptedException {
        List<ConfigKey> keys = new ArrayList<>();
        for (int page = 1; ; page++) {
            JsonNode answer = http.get(
                    CONFIGS,
                    query(
                            "search",
                            "accurate",
                            "dataId",
                            "",
                            "group",
                            "",
                            "tenant",
                            namespace,
                            "pageNo",
                            String.valueOf(page),
                            "pageSize",
                            String.valueOf(PAGE)));
            for (JsonNode item : answer.path("pageItems")) {
                keys.add(new ConfigKey(
                        namespace,
                        item.path("group").asText(),
                        item.path("dataId").asText()));
            }
            if (page >= answer.path("pagesAvailable").asInt()
                    || answer.path("pageItems").isEmpty()) {
                return keys;
            }
        }
    }

    @Override
    public Optional<Config> config(ConfigKey key) throws IOException, InterruptedException {
        return http.find(CONFIGS, keyQuery(key, "show", "all")).map(c -> NacosJson.config(key, c));
    }

    @Override
    public Optional<Beta> beta(ConfigKey key) throws IOException, InterruptedException {
        return http.find(CONFIGS, keyQuery(key, "beta", "true"))
                .map(a -> a.path("data"))
                .filter(d -> d.isObject())
                .map(d -> new Beta(key, NacosJson.text(d, "content"), NacosJson.text(d, "betaIps")));
    }

    private static Map<String, String> keyQuery(ConfigKey key, String flag, String value) {
        return query(flag, value, "dataId", key.dataId(), "group", key.group(), "tenant", key.namespace());
    }

    @Override
    public List<ServiceKey> services(String namespace, Set<String> groups) throws IOException, InterruptedException {
        List<ServiceKey> keys = new ArrayList<>();
        for (int page = 1; ; page++) {
            Optional<JsonNode> answer = http.find(
                    "/nacos/v1/ns/catalog/services",
                    query(
                            "namespaceId",
                            namespace,
                            "withInstances",
                            "false",
                            "hasIpCount",
                            "false",
                            "pageNo",
                            String.valueOf(page),
                            "pageSize",
                            String.valueOf(PAGE)));
            if (answer.isEmpty()) {
                return servicesByGroup(namespace, groups);
            }
            JsonNode list = answer.get().path("serviceList");
            for (JsonNode s : list) {
                keys.add(new ServiceKey(
                        namespace, s.path("groupName").asText(), s.path("name").asText()));
            }
            if (list.isEmpty() || keys.size() >= answer.get().path("count").asInt()) {
                return keys;
            }
        }
    }

    private List<ServiceKey> servicesByGroup(String namespace, Set<String> groups)
            throws IOException, InterruptedException {
        List<ServiceKey> keys = new ArrayList<>();
        for (String group : groups) {
            JsonNode answer = http.get(
                    "/nacos/v1/ns/service/list",
                    query(
                            "namespaceId",
                            namespace,
                            "groupName",
                            group,
                            "pageNo",
                            "1",
                            "pageSize",
                            String.valueOf(Integer.MAX_VALUE)));
            for (JsonNode name : answer.path("doms")) {
                keys.add(new ServiceKey(namespace, group, name.asText()));
            }
        }
        return keys;
    }

    @Override
    public Service service(ServiceKey key) throws IOException, InterruptedException {
        JsonNode s = http.get("/nacos/v1/ns/service", serviceQuery(key));
        Map<String, Cluster> clusters = new LinkedHashMap<>();
        for (JsonNode c : s.path("clusters")) {
            clusters.put(c.path("name").asText(), NacosJson.cluster(c));
        }
        return new Service(key, s.path("protectThreshold").asDouble(0), NacosJson.strings(s.get("metadata")), clusters);
    }

    @Override
    public List<Instance> instances(Service service) throws IOException, InterruptedException {
        ServiceKey key = service.key();
        List<Instance> all = new ArrayList<>();
        for (String cluster : service.clusters().keySet()) {
            for (int page = 1; ; page++) {
                Map<String, String> q = serviceQuery(key);
                q.put("clusterName", cluster);
                q.put("pageNo", String.valueOf(page));
                q.put("pageSize", String.valueOf(PAGE));
                Optional<JsonNode> answer = http.find("/nacos/v1/ns/catalog/instances", q);
                if (answer.isEmpty()) {
                    return listedInstances(key);
                }
                JsonNode list = answer.get().path("list");
                for (JsonNode i : list) {
                    all.add(NacosJson.instance(key, i));
                }
                if (list.size() < PAGE) {
                    break;
                }
            }
        }
        return all;
    }

    private List<Instance> listedInstances(ServiceKey key) throws IOException, InterruptedException {
        Map<String, String> q = serviceQuery(key);
        q.put("healthyOnly", "false");
        List<Instance> all = new ArrayList<>();
        for (JsonNode i : http.get("/nacos/v1/ns/instance/list", q).path("hosts")) {
            all.add(NacosJson.instance(key, i));
        }
        return all;
    }

    /** The service named both ways, as Nacos's catalog reads {@code serviceName} (grouped) and Lodestar both. */
    private static Map<String, String> serviceQuery(ServiceKey key) {
        return query("serviceName", key.grouped(), "groupName", key.group(), "namespaceId", key.namespace());
    }

    @Override
    public Optional<List<User>> users() throws IOException, InterruptedException {
        return pages("/nacos/v1/auth/users", NacosJson::user);
    }

    @Override
    public Optional<List<RoleBinding>> roles() throws IOException, InterruptedException {
        return pages("/nacos/v1/auth/roles", NacosJson::role);
    }

    @Override
    public Optional<List<Permission>> permissions() throws IOException, InterruptedException {
        return pages("/nacos/v1/auth/permissions", NacosJson::permission);
    }

    /** Every item of a paged auth list; empty when the source does not serve it (auth plugin off). */
    private <T> Optional<List<T>> pages(String path, Function<JsonNode, T> item)
            throws IOException, InterruptedException {
        List<T> all = new ArrayList<>();
        for (int page = 1; ; page++) {
            Optional<JsonNode> answer =
                    http.find(path, query("pageNo", String.valueOf(page), "pageSize", String.valueOf(PAGE)));
            if (answer.isEmpty()) {
                return page == 1 ? Optional.empty() : Optional.of(all);
            }
            answer.get().path("pageItems").forEach(i -> all.add(item.apply(i)));
            if (page >= answer.get().path("pagesAvailable").asInt()
                    || answer.get().path("pageItems").isEmpty()) {
                return Optional.of(all);
            }
        }
    }

    static Map<String, String> query(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
