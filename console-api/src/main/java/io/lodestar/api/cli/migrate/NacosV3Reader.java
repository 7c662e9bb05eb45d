package io.lodestar.api.cli.migrate;

import static io.lodestar.api.cli.migrate.NacosV1Reader.query;

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
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Nacos 3.x through its v3 admin API ({@code /nacos/v3/admin/{core,cs,ns}}, {@code /nacos/v3/auth}),
 * as its controllers answer: every body a {@code Result} ({@code {"code":0,"message":"success",
 * "data":...}}), lists in a {@code Page} ({@code totalCount}, {@code pageNumber}, {@code
 * pagesAvailable}, {@code pageItems}). The public namespace's id is {@code public}. A beta is a gray
 * release whose {@code grayRule} is a JSON string whose {@code expr} holds the IPs. Lodestar does not
 * serve this API, so this reader is tested against recorded answers only ({@code NacosV3ReaderTest}).
 */
final class NacosV3Reader implements SourceReader {
    static final String LOGIN = "/nacos/v3/auth/user/login";
    static final String STATE = "/nacos/v3/admin/core/state";
    private static final String CONFIG = "/nacos/v3/admin/cs/config";
    private static final int PAGE = 100;

    private final SourceHttp http;

    NacosV3Reader(SourceHttp http) {
        this.http = http;
    }

    @Override
    public String describe() {
        return "Nacos v3 admin API";
    }

    /** The {@code data} of a {@code Result}; a {@code code} other than 0 is a failure quoting the message. */
    private static JsonNode data(String path, JsonNode result) {
        int code = result.path("code").asInt(0);
        if (code != 0) {
            throw new SourceHttp.SourceException("the source answered code " + code + " to GET " + path + ": "
                    + result.path("message").asText());
        }
        return result.path("data");
    }

    private JsonNode get(String path, Map<String, String> query) throws IOException, InterruptedException {
        return data(path, http.get(path, query));
    }

    private Optional<JsonNode> find(String path, Map<String, String> query) throws IOException, InterruptedException {
        Optional<JsonNode> answer = http.find(path, query);
        return answer.isEmpty() ? answer : Optional.of(data(path, answer.get()));
    }

    @Override
    public List<Namespace> namespaces() throws IOException, InterruptedException {
        List<Namespace> all = new ArrayList<>();
        for (JsonNode n : get("/nacos/v3/admin/core/namespace/list", Map.of())) {
            all.add(NacosJson.namespace(n));
        }
        return all;
    }

    @Override
    public List<ConfigKey> configKeys(String namespace) throws IOException, InterruptedException {
        List<ConfigKey> keys = new ArrayList<>();
        pages(
                CONFIG + "/list",
                query("namespaceId", v3Namespace(namespace), "dataId", "", "groupName", "", "search", "blur"),
                c -> keys.add(new ConfigKey(
                        namespace,
                        c.path("groupName").asText(),
                        c.path("dataId").asText())));
        return keys;
    }

    @Override
    public Optional<Config> config(ConfigKey key) throws IOException, InterruptedException {
        return find(CONFIG, keyQuery(key)).filter(JsonNode::isObject).map(c -> NacosJson.config(key, c));
    }

    @Override
    public Optional<Beta> beta(ConfigKey key) throws IOException, InterruptedException {
        Optional<JsonNode> gray = find(CONFIG + "/beta", keyQuery(key)).filter(JsonNode::isObject);
        if (gray.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Beta(key, NacosJson.text(gray.get(), "content"), betaIps(gray.get())));
    }

    /** The IPs of a beta's {@code grayRule}: {@code {"type":"beta","version":"1.0.0","expr":"ip,ip","priority":N}}. */
    static String betaIps(JsonNode gray) {
        String rule = NacosJson.text(gray, "grayRule");
        if (rule == null || rule.isBlank()) {
            throw new SourceHttp.SourceException("the beta of " + NacosJson.text(gray, "dataId") + " has no grayRule");
        }
        try {
            return Json.MAPPER.readTree(rule).path("expr").asText();
        } catch (IOException e) {
            throw new SourceHttp.SourceException("the beta's grayRule is not JSON: " + rule);
        }
    }

    private static Map<String, String> keyQuery(ConfigKey key) {
        return query("dataId", key.dataId(), "groupName", key.group(), "namespaceId", v3Namespace(key.namespace()));
    }

    /** Nacos 3 names the public namespace {@code public}. */
    private static String v3Namespace(String namespace) {
        return namespace.isEmpty() ? "public" : namespace;
    }

    @Override
    public List<ServiceKey> services(String namespace, Set<String> groups) throws IOException, InterruptedException {
        List<ServiceKey> keys = new ArrayList<>();
        pages(
                "/nacos/v3/admin/ns/service/list",
                query("namespaceId", v3Namespace(namespace), "withInstances", "false", "ignoreEmptyService", "false"),
                s -> keys.add(new ServiceKey(
                        namespace, s.path("groupName").asText(), s.path("name").asText())));
        return keys;
    }

    @Override
    public Service service(ServiceKey key) throws IOException, InterruptedException {
        JsonNode s = get("/nacos/v3/admin/ns/service", serviceQuery(key));
        Map<String, Cluster> clusters = new LinkedHashMap<>();
        s.path("clusterMap").fields().forEachRemaining(e -> clusters.put(e.getKey(), NacosJson.cluster(e.getValue())));
        return new Service(key, s.path("protectThreshold").asDouble(0), NacosJson.strings(s.get("metadata")), clusters);
    }

    @Override
    public List<Instance> instances(Service service) throws IOException, InterruptedException {
        List<Instance> all = new ArrayList<>();
        Map<String, String> q = serviceQuery(service.key());
        q.put("healthyOnly", "false");
        for (JsonNode i : get("/nacos/v3/admin/ns/instance/list", q)) {
            all.add(NacosJson.instance(service.key(), i));
        }
        return all;
    }

    private static Map<String, String> serviceQuery(ServiceKey key) {
        return query("namespaceId", v3Namespace(key.namespace()), "groupName", key.group(), "serviceName", key.name());
    }

    @Override
    public Optional<List<User>> users() throws IOException, InterruptedException {
        return authPages("/nacos/v3/auth/user/list", NacosJson::user);
    }

    @Override
    public Optional<List<RoleBinding>> roles() throws IOException, InterruptedException {
        return authPages("/nacos/v3/auth/role/list", NacosJson::role);
    }

    @Override
    public Optional<List<Permission>> permissions() throws IOException, InterruptedException {
        return authPages("/nacos/v3/auth/permission/list", NacosJson::permission);
    }

    private <T> Optional<List<T>> authPages(String path, Function<JsonNode, T> item)
            throws IOException, InterruptedException {
        if (http.find(path, query("pageNo", "1", "pageSize", "1", "search", "accurate"))
                .isEmpty()) {
            return Optional.empty();
        }
        List<T> all = new ArrayList<>();
        pages(path, query("search", "accurate"), i -> all.add(item.apply(i)));
        return Optional.of(all);
    }

    /** Calls {@code each} on every item of a paged list, page after page. */
    private void pages(String path, Map<String, String> query, java.util.function.Consumer<JsonNode> each)
            throws IOException, InterruptedException {
        for (int page = 1; ; page++) {
            Map<String, String> q = new LinkedHashMap<>(query);
            q.put("pageNo", String.valueOf(page));
            q.put("pageSize", String.valueOf(PAGE));
            JsonNode data = get(path, q);
            data.path("pageItems").forEach(each);
            if (page >= data.path("pagesAvailable").asInt()
                    || data.path("pageItems").isEmpty()) {
                return;
            }
        }
    }
}
