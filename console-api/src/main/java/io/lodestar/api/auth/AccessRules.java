package io.lodestar.api.auth;

import java.util.Collection;
import java.util.Map;
import java.util.TreeSet;

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
    private static final Access CLUSTER_READ = new Access.OnCluster('r');
    private static final Access CLUSTER_WRITE = new Access.OnCluster('w');
    /** A read or a write of what the typed request names. */
    private static final Access READ = new Access.OnResources('r');

    private static final Access WRITE = new Access.OnResources('w');

    private static final Map<String, Access> RULES = Map.ofEntries(
            // open to anyone: logging in, probes, metrics
            Map.entry("POST " + Auth.LOGIN_PATH, OPEN),
            Map.entry("POST " + Auth.OLD_LOGIN_PATH, OPEN),
            Map.entry("POST " + Auth.V3_LOGIN_PATH, OPEN),
            Map.entry("GET /nacos/v1/console/health/liveness", OPEN),
            Map.entry("GET /nacos/v1/console/health/readiness", OPEN),
            Map.entry("GET /metrics", OPEN),
            // the web console (ConsoleRoutes): its static files and client-route fallback, which Javalin
            // checks as "GET *" once no route matched (never on an API path: JavalinExchange names those
            // otherwise, undeclared), and the redirect from Nacos's console path. They hold no data;
            // every API call the page makes is checked here
            Map.entry("GET *", OPEN),
            Map.entry("GET /nacos", OPEN),
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
            // one path reads, searches and exports (by its parameters: the typed request tells), one publishes
            // and imports
            Map.entry("GET /nacos/v1/cs/configs", READ),
            Map.entry("POST /nacos/v1/cs/configs", WRITE),
            Map.entry("DELETE /nacos/v1/cs/configs", WRITE),
            Map.entry("POST /lodestar/v1/cs/configs/beta/promote", WRITE),
            Map.entry("GET /nacos/v1/cs/history", READ),
            Map.entry("GET /nacos/v1/cs/history/previous", READ),
            Map.entry("POST /lodestar/v1/cs/history/rollback", WRITE),
            Map.entry("GET /nacos/v2/cs/config", READ),
            Map.entry("POST /nacos/v2/cs/config", WRITE),
            Map.entry("DELETE /nacos/v2/cs/config", WRITE),
            // a listener hears only keys it may read
            Map.entry("POST /nacos/v1/cs/configs/listener", READ),
            // the push channel: any user connects; each subscription is checked key by key (Auth.checkRead)
            Map.entry("WS /lodestar/v1/push", ANY_USER),
            Map.entry("ConfigQueryRequest", READ),
            Map.entry("ConfigPublishRequest", WRITE),
            Map.entry("ConfigRemoveRequest", WRITE),
            Map.entry("ConfigBatchListenRequest", READ),
            // services and instances; a beat needs what a registration needs
            Map.entry("POST /nacos/v1/ns/instance", WRITE),
            Map.entry("PUT /nacos/v1/ns/instance", WRITE),
            Map.entry("PATCH /nacos/v1/ns/instance", WRITE),
            Map.entry("DELETE /nacos/v1/ns/instance", WRITE),
            // removes any instance, a gRPC connection's included: the admin's only
            Map.entry("DELETE /lodestar/v1/ns/instance", ADMIN),
            Map.entry("PUT /nacos/v1/ns/instance/beat", WRITE),
            Map.entry("GET /nacos/v1/ns/instance", READ),
            Map.entry("GET /nacos/v1/ns/instance/list", READ),
            Map.entry("PUT /nacos/v1/ns/health/instance", WRITE),
            Map.entry("PUT /nacos/v1/ns/cluster", WRITE),
            Map.entry("POST /nacos/v1/ns/service", WRITE),
            Map.entry("PUT /nacos/v1/ns/service", WRITE),
            Map.entry("DELETE /nacos/v1/ns/service", WRITE),
            Map.entry("GET /nacos/v1/ns/service", READ),
            Map.entry("GET /nacos/v1/ns/service/list", READ),
            Map.entry("POST /nacos/v2/ns/instance", WRITE),
            Map.entry("PUT /nacos/v2/ns/instance", WRITE),
            Map.entry("DELETE /nacos/v2/ns/instance", WRITE),
            Map.entry("GET /nacos/v2/ns/instance", READ),
            Map.entry("GET /nacos/v2/ns/instance/list", READ),
            Map.entry("InstanceRequest", WRITE),
            Map.entry("BatchInstanceRequest", WRITE),
            Map.entry("PersistentInstanceRequest", WRITE),
            Map.entry("ServiceQueryRequest", READ),
            Map.entry("SubscribeServiceRequest", READ),
            Map.entry("ServiceListRequest", READ),
            // the operator's views of who listens, subscribes and holds: reads of what they name,
            // answered from every member
            Map.entry("GET /nacos/v1/cs/configs/listener", READ),
            Map.entry("GET /nacos/v1/cs/listener", READ),
            Map.entry("GET /nacos/v1/ns/service/subscribers", READ),
            Map.entry("GET /nacos/v1/ns/catalog/instances", READ),
            // operator queries: the catalog (a namespace's services: read on all of them, as Nacos
            // asks read on the namespace), Prometheus's targets (read on every service listed: every
            // namespace's for /nacos/prometheus) and a publish's delivery report (read on the config,
            // as the listener query)
            Map.entry("GET /nacos/v1/ns/catalog/services", READ),
            Map.entry("GET /nacos/v1/ns/catalog/service", READ),
            Map.entry("GET /nacos/prometheus", READ),
            Map.entry("GET /nacos/prometheus/namespaceId/{namespaceId}", READ),
            Map.entry("GET /nacos/prometheus/namespaceId/{namespaceId}/service/{service}", READ),
            Map.entry("GET /lodestar/v1/cs/delivery", READ),
            // cluster administration
            Map.entry("GET /lodestar/v1/cluster", CLUSTER_READ),
            Map.entry("POST /lodestar/v1/cluster/members", CLUSTER_WRITE),
            Map.entry("DELETE /lodestar/v1/cluster/members", CLUSTER_WRITE),
            Map.entry("POST /lodestar/v1/cluster/leader", CLUSTER_WRITE),
            // every namespace and the users' password hashes: admin only
            Map.entry("GET /lodestar/v1/snapshot", ADMIN),
            Map.entry("GET /lodestar/v1/config/listeners", CLUSTER_READ),
            Map.entry("GET /nacos/v1/ns/operator/metrics", CLUSTER_READ),
            Map.entry("GET /nacos/v1/ns/operator/servers", CLUSTER_READ),
            Map.entry("GET /nacos/v1/ns/operator/switches", CLUSTER_READ),
            Map.entry("PUT /nacos/v1/ns/operator/switches", CLUSTER_WRITE),
            Map.entry("GET /nacos/v2/core/loader/current", CLUSTER_READ),
            Map.entry("POST /nacos/v2/core/loader/reloadCurrent", CLUSTER_WRITE),
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

    /**
     * Throws, naming them, if any of {@code operations} has no declaration, or if one whose rule is
     * on the resources of its typed request is not among {@code typed} (served by a parser and a
     * handler, with the check between them): call once the routes are in.
     */
    public static void requireDeclared(Collection<String> operations, Collection<String> typed) {
        TreeSet<String> missing = new TreeSet<>(operations);
        missing.removeAll(RULES.keySet());
        if (!missing.isEmpty()) {
            throw new IllegalStateException("operations without a permission declared in AccessRules: " + missing);
        }
        TreeSet<String> untyped = new TreeSet<>(operations);
        untyped.removeIf(op -> !(RULES.get(op) instanceof Access.OnResources) || typed.contains(op));
        if (!untyped.isEmpty()) {
            throw new IllegalStateException("operations on resources served without a typed request: " + untyped);
        }
    }
}
