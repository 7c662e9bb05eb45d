package io.lodestar.api.auth;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.auth.Resources.Resource;
import io.lodestar.api.http.CheckedRequest;
import io.lodestar.config.listen.ListeningConfigs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Who may do what: the one table of every operation the server serves (HTTP routes as {@code
 * METHOD path}, the WebSocket upgrade as {@code WS path}, gRPC request types) and the {@link Access}
 * each needs. An operation missing here is refused ({@link Authorization}), and a server whose
 * routes are not all declared does not start ({@link #requireDeclared}).
 */
public final class AccessRules {
    private static final Access OPEN = new Access.Open();
    private static final Access ANY_USER = new Access.AnyUser();
    private static final Access ADMIN = new Access.Admin();
    private static final Access CLUSTER_READ = on('r', r -> List.of(Resources.cluster()));
    private static final Access CLUSTER_WRITE = on('w', r -> List.of(Resources.cluster()));

    /** A config named by Nacos's v1 parameters ({@code tenant}), v2's ({@code namespaceId}) or gRPC's body ({@code tenant}). */
    private static final Function<CheckedRequest, List<Resource>> CONFIG =
            r -> List.of(Resources.config(first(r, "tenant", "namespaceId"), r.param("group"), r.param("dataId")));
    /** A service named by Nacos's HTTP parameters or gRPC body; its name may carry its group ({@code group@@name}). */
    private static final Function<CheckedRequest, List<Resource>> SERVICE = r -> {
        String group = first(r, "groupName", "group");
        String name = r.param("serviceName");
        int split = name == null ? -1 : name.indexOf("@@");
        if (split >= 0) {
            group = name.substring(0, split);
            name = name.substring(split + 2);
        }
        return List.of(Resources.naming(first(r, "namespaceId", "namespace"), group, name));
    };
    /** Every service of a group (a listing): the name is all of them. */
    private static final Function<CheckedRequest, List<Resource>> SERVICES =
            r -> List.of(Resources.naming(first(r, "namespaceId", "namespace"), first(r, "groupName", "group"), null));

    private static final Map<String, Access> RULES = Map.ofEntries(
            // open to anyone: logging in, probes, metrics
            Map.entry("POST " + Auth.LOGIN_PATH, OPEN),
            Map.entry("POST " + Auth.OLD_LOGIN_PATH, OPEN),
            Map.entry("POST " + Auth.V3_LOGIN_PATH, OPEN),
            Map.entry("GET /nacos/v1/console/health/liveness", OPEN),
            Map.entry("GET /nacos/v1/console/health/readiness", OPEN),
            Map.entry("GET /metrics", OPEN),
            Map.entry("HealthCheckRequest", OPEN),
            // users, roles, permissions
            Map.entry("GET /nacos/v1/auth/users", ADMIN),
            Map.entry("POST /nacos/v1/auth/users", ADMIN),
            Map.entry("PUT /nacos/v1/auth/users", new Access.AdminOrSelf("username")),
            Map.entry("DELETE /nacos/v1/auth/users", ADMIN),
            Map.entry("GET /nacos/v1/auth/roles", ADMIN),
            Map.entry("POST /nacos/v1/auth/roles", ADMIN),
            Map.entry("DELETE /nacos/v1/auth/roles", ADMIN),
            Map.entry("GET /nacos/v1/auth/permissions", ADMIN),
            Map.entry("POST /nacos/v1/auth/permissions", ADMIN),
            Map.entry("DELETE /nacos/v1/auth/permissions", ADMIN),
            // namespaces: anyone may list them (as in Nacos); changing them is the admin's
            Map.entry("GET /nacos/v1/console/namespaces", ANY_USER),
            Map.entry("POST /nacos/v1/console/namespaces", ADMIN),
            Map.entry("PUT /nacos/v1/console/namespaces", ADMIN),
            Map.entry("DELETE /nacos/v1/console/namespaces", ADMIN),
            // configs: one path reads, searches and exports (by its parameters), one publishes and imports
            Map.entry(
                    "GET /nacos/v1/cs/configs",
                    on('r', r -> exporting(r) ? List.of(Resources.transfer(r.param("tenant"))) : CONFIG.apply(r))),
            Map.entry(
                    "POST /nacos/v1/cs/configs",
                    on(
                            'w',
                            r -> "true".equals(r.param("import"))
                                    ? List.of(Resources.transfer(r.param("namespace")))
                                    : CONFIG.apply(r))),
            Map.entry("DELETE /nacos/v1/cs/configs", on('w', CONFIG)),
            Map.entry("POST /lodestar/v1/cs/configs/beta/promote", on('w', CONFIG)),
            Map.entry("GET /nacos/v1/cs/history", on('r', CONFIG)),
            Map.entry("GET /nacos/v1/cs/history/previous", on('r', CONFIG)),
            Map.entry("POST /lodestar/v1/cs/history/rollback", on('w', CONFIG)),
            Map.entry("GET /nacos/v2/cs/config", on('r', CONFIG)),
            Map.entry("POST /nacos/v2/cs/config", on('w', CONFIG)),
            Map.entry("DELETE /nacos/v2/cs/config", on('w', CONFIG)),
            // a listener hears only keys it may read
            Map.entry(
                    "POST /nacos/v1/cs/configs/listener",
                    on(
                            'r',
                            r -> ListeningConfigs.parseParam(r.param(ListeningConfigs.FIELD)).stream()
                                    .map(e -> Resources.config(
                                            e.key().tenant(),
                                            e.key().group(),
                                            e.key().dataId()))
                                    .toList())),
            // the push channel: any user connects; each subscription is checked key by key (Auth.checkRead)
            Map.entry("WS /lodestar/v1/push", ANY_USER),
            Map.entry("ConfigQueryRequest", on('r', CONFIG)),
            Map.entry("ConfigPublishRequest", on('w', CONFIG)),
            Map.entry("ConfigRemoveRequest", on('w', CONFIG)),
            Map.entry("ConfigBatchListenRequest", on('r', AccessRules::listened)),
            // services and instances; a beat needs what a registration needs
            Map.entry("POST /nacos/v1/ns/instance", on('w', SERVICE)),
            Map.entry("PUT /nacos/v1/ns/instance", on('w', SERVICE)),
            Map.entry("PATCH /nacos/v1/ns/instance", on('w', SERVICE)),
            Map.entry("DELETE /nacos/v1/ns/instance", on('w', SERVICE)),
            Map.entry("PUT /nacos/v1/ns/instance/beat", on('w', SERVICE)),
            Map.entry("GET /nacos/v1/ns/instance", on('r', SERVICE)),
            Map.entry("GET /nacos/v1/ns/instance/list", on('r', SERVICE)),
            Map.entry("PUT /nacos/v1/ns/health/instance", on('w', SERVICE)),
            Map.entry("PUT /nacos/v1/ns/cluster", on('w', SERVICE)),
            Map.entry("POST /nacos/v1/ns/service", on('w', SERVICE)),
            Map.entry("PUT /nacos/v1/ns/service", on('w', SERVICE)),
            Map.entry("DELETE /nacos/v1/ns/service", on('w', SERVICE)),
            Map.entry("GET /nacos/v1/ns/service", on('r', SERVICE)),
            Map.entry("GET /nacos/v1/ns/service/list", on('r', SERVICES)),
            Map.entry("POST /nacos/v2/ns/instance", on('w', SERVICE)),
            Map.entry("PUT /nacos/v2/ns/instance", on('w', SERVICE)),
            Map.entry("DELETE /nacos/v2/ns/instance", on('w', SERVICE)),
            Map.entry("GET /nacos/v2/ns/instance", on('r', SERVICE)),
            Map.entry("GET /nacos/v2/ns/instance/list", on('r', SERVICE)),
            Map.entry("InstanceRequest", on('w', SERVICE)),
            Map.entry("BatchInstanceRequest", on('w', SERVICE)),
            Map.entry("PersistentInstanceRequest", on('w', SERVICE)),
            Map.entry("ServiceQueryRequest", on('r', SERVICE)),
            Map.entry("SubscribeServiceRequest", on('r', SERVICE)),
            Map.entry("ServiceListRequest", on('r', SERVICES)),
            // cluster administration
            Map.entry("GET /lodestar/v1/cluster", CLUSTER_READ),
            Map.entry("POST /lodestar/v1/cluster/members", CLUSTER_WRITE),
            Map.entry("DELETE /lodestar/v1/cluster/members", CLUSTER_WRITE),
            Map.entry("POST /lodestar/v1/cluster/leader", CLUSTER_WRITE),
            Map.entry("GET /lodestar/v1/config/listeners", CLUSTER_READ),
            Map.entry("GET /nacos/v1/ns/operator/metrics", CLUSTER_READ),
            Map.entry("GET /nacos/v1/ns/operator/servers", CLUSTER_READ),
            Map.entry("GET /nacos/v1/ns/operator/switches", CLUSTER_READ),
            Map.entry("PUT /nacos/v1/ns/operator/switches", CLUSTER_WRITE),
            Map.entry("GET /nacos/v2/core/loader/current", CLUSTER_READ),
            Map.entry("GET /nacos/v2/core/loader/reloadCurrent", CLUSTER_WRITE),
            Map.entry("POST /nacos/v2/core/loader/reloadCurrent", CLUSTER_WRITE),
            Map.entry("GET /nacos/v2/core/loader/reloadClient", CLUSTER_WRITE),
            Map.entry("POST /nacos/v2/core/loader/reloadClient", CLUSTER_WRITE));

    private AccessRules() {}

    /** The declaration for {@code operation}, or null. */
    static Access of(String operation) {
        return RULES.get(operation);
    }

    /** Every declared operation. */
    public static java.util.Set<String> declared() {
        return RULES.keySet();
    }

    private static Access on(char action, Function<CheckedRequest, List<Resource>> resources) {
        return new Access.On(action, resources);
    }

    private static String first(CheckedRequest request, String name, String otherName) {
        String value = request.param(name);
        return value != null ? value : request.param(otherName);
    }

    private static boolean exporting(CheckedRequest request) {
        return "true".equals(request.param("export")) || "true".equals(request.param("exportV2"));
    }

    /** The keys a gRPC batch listen names, each in its {@code configListenContexts} entry. */
    private static List<Resource> listened(CheckedRequest request) {
        JsonNode contexts = request.body() == null ? null : request.body().get("configListenContexts");
        if (contexts == null || !contexts.isArray()) {
            return List.of(); // the handler refuses it
        }
        List<Resource> out = new ArrayList<>();
        for (JsonNode c : contexts) {
            out.add(Resources.config(text(c, "tenant"), text(c, "group"), text(c, "dataId")));
        }
        return out;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || !v.isTextual() ? null : v.asText();
    }

    /** Throws, naming them, if any of {@code operations} has no declaration: call once the routes are in. */
    public static void requireDeclared(Collection<String> operations) {
        TreeSet<String> missing = new TreeSet<>(operations);
        missing.removeAll(RULES.keySet());
        if (!missing.isEmpty()) {
            throw new IllegalStateException("operations without a permission declared in AccessRules: " + missing);
        }
    }
}
