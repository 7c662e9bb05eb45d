package io.lodestar.api.metrics;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.lodestar.api.auth.Auth;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.LimitRefusals;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Prometheus metrics at {@code GET /metrics}: the JVM, HTTP requests (by method, route and
 * status) and the node's Raft and store state.
 */
public final class Metrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final LimitRefusals refusals;
    /** Routes are patterns, so the keys are bounded: every route times at most a few statuses. */
    private final Map<String, RouteTimers> timers = new ConcurrentHashMap<>();

    public Metrics(KvStore store, Supplier<Readiness> readiness, LimitRefusals refusals) {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        this.refusals = refusals;
        for (Limit limit : Limit.values()) { // every limit from the start, so a scrape sees each at 0
            FunctionCounter.builder("lodestar_limit_refusals", refusals, r -> r.count(limit))
                    .description("Requests and connections refused by a limit, by the limit's name (docs/limits.md)")
                    .tag("limit", limit.key())
                    .register(registry);
        }
        Gauge.builder("lodestar_raft_term", store, s -> s.cluster().term()).register(registry);
        Gauge.builder("lodestar_raft_applied_index", store, s -> s.cluster().appliedIndex())
                .register(registry);
        Gauge.builder("lodestar_raft_commit_index", store, s -> s.cluster().commitIndex())
                .register(registry);
        Gauge.builder("lodestar_raft_apply_lag_entries", store, s -> {
                    var v = s.cluster();
                    return Math.max(0, v.commitIndex() - v.appliedIndex());
                })
                .description("Entries this node knows committed but has not applied yet")
                .register(registry);
        Gauge.builder("lodestar_raft_leader_contact_age_seconds", store, s -> {
                    var c = s.leaderContact();
                    long since = c.lastContactMillis() != 0 ? c.lastContactMillis() : c.noLeaderSinceMillis();
                    return Math.max(0, System.currentTimeMillis() - since) / 1000.0;
                })
                .description("Seconds since this node last knew a leader (since it started, if never); "
                        + "under a second while the group is healthy")
                .register(registry);
        Gauge.builder("lodestar_raft_is_leader", store, s -> isLeader(s.cluster()) ? 1 : 0)
                .register(registry);
        Gauge.builder("lodestar_store_revision", store, KvStore::revision).register(registry);
        // RocksDB's native memory: part of the RSS that the JVM's own memory metrics never show
        Gauge.builder(
                        "lodestar_store_memtable_bytes",
                        store,
                        s -> s.storageMemory().memtableBytes())
                .description("Writes the store holds in memory, not yet flushed to table files")
                .register(registry);
        Gauge.builder(
                        "lodestar_store_block_cache_bytes",
                        store,
                        s -> s.storageMemory().blockCacheBytes())
                .description("The store's block cache in use, memtables included")
                .register(registry);
        Gauge.builder(
                        "lodestar_store_table_readers_bytes",
                        store,
                        s -> s.storageMemory().tableReaderBytes())
                .description("Index and filter blocks of open table files held outside the block cache")
                .register(registry);
        Gauge.builder("lodestar_ready", readiness, r -> r.get().ready() ? 1 : 0).register(registry);
        Gauge.builder("lodestar_raft_log_bytes", store, s -> s.logStats().logBytes())
                .description("Bytes of the Raft log on disk")
                .register(registry);
        Gauge.builder(
                        "lodestar_raft_log_entries_since_snapshot",
                        store,
                        s -> s.logStats().entriesSinceSnapshot())
                .description("Log entries applied since the last snapshot")
                .register(registry);
        Gauge.builder(
                        "lodestar_raft_log_bytes_since_snapshot",
                        store,
                        s -> s.logStats().bytesSinceSnapshot())
                .description("Bytes of the log entries applied since the last snapshot")
                .register(registry);
        Gauge.builder(
                        "lodestar_raft_snapshot_duration_seconds",
                        store,
                        s -> s.logStats().lastSnapshotMillis() / 1000.0)
                .description("How long the last snapshot took")
                .register(registry);
        Gauge.builder(
                        "lodestar_raft_snapshot_last_timestamp_seconds",
                        store,
                        s -> s.logStats().lastSnapshotAtMillis() / 1000.0)
                .description("When the last snapshot completed (Unix time; 0 for none since start)")
                .register(registry);
        FunctionCounter.builder(
                        "lodestar_raft_snapshots", store, s -> s.logStats().snapshots())
                .description("Snapshots completed since start")
                .register(registry);
        Gauge.builder("lodestar_disk_free_bytes", store, s -> s.logStats().diskFreeBytes())
                .description("Usable bytes on the data directory's filesystem")
                .register(registry);
    }

    /** Exposes the requests in flight, as counted by {@code active} (Jetty's statistics handler). */
    public void requestsInFlight(IntSupplier active) {
        Gauge.builder("http_server_requests_active", active, IntSupplier::getAsInt)
                .description("HTTP requests received and not yet answered, held long-polls included")
                .strongReference(true) // nothing else holds the supplier; a weak one reads NaN after a collection
                .register(registry);
    }

    /** Exposes the gRPC client connections set up on this node, as counted by {@code connections}. */
    public void grpcConnections(IntSupplier connections) {
        Gauge.builder("lodestar_grpc_connections", connections, IntSupplier::getAsInt)
                .description("nacos-client 2.x/3.x connections set up on this node")
                .strongReference(true)
                .register(registry);
    }

    /** Counts clients the connection balancer sent to another member (0 registers the counter). */
    public void grpcConnectionsBalanced(int moved) {
        Counter.builder("lodestar_grpc_connections_balanced")
                .description("nacos-client connections the connection balance sent to a less loaded member")
                .register(registry)
                .increment(moved);
    }

    /**
     * Times one gRPC request by its type (the request types served, and "other") and its outcome
     * ("ok", or the error code answered): both bounded sets.
     */
    public void grpcRequest(String type, String outcome, long nanos) {
        Timer.builder("lodestar_grpc_requests")
                .description("gRPC requests of nacos-client 2.x/3.x answered, by type and outcome")
                .tag("type", type)
                .tag("outcome", outcome)
                .register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Counts a request or connection refused by {@code limit}. */
    public void limitRefused(Limit limit) {
        refusals.refused(limit);
    }

    /** Counts a request pushed to a gRPC client: {@code event} is sent, acked, failed or retried. */
    public void grpcPush(String type, String event) {
        Counter.builder("lodestar_grpc_pushes")
                .description("Requests pushed to gRPC clients (sent, acked, failed, retried), by type")
                .tag("type", type)
                .tag("event", event)
                .register(registry)
                .increment();
    }

    /**
     * Counts the health probes of persistent instances made, and those not made because the address
     * is out of scope. Micrometer holds {@code health} weakly: the server holds it.
     */
    public void healthProbes(PersistentHealthChecks health) {
        FunctionCounter.builder("lodestar_health_probes_started", health, PersistentHealthChecks::probesStarted)
                .description("Health probes of persistent instances started (TCP connects, HTTP GETs)")
                .register(registry);
        FunctionCounter.builder("lodestar_health_probes_refused", health, PersistentHealthChecks::probesRefused)
                .description("Health probes not made: the instance's address is outside --probe-allow")
                .register(registry);
    }

    /** Counts the passwords checked at login. Micrometer holds {@code auth} weakly: the server holds it. */
    public void logins(Auth auth) {
        FunctionCounter.builder("lodestar_login_password_checks", auth, Auth::passwordChecks)
                .description("Passwords checked at login (bcrypt, slow by design); a throttled attempt costs none")
                .register(registry);
    }

    private static boolean isLeader(ClusterView view) {
        return view.self().equals(view.leader());
    }

    /** Times every HTTP request; call while configuring Javalin. */
    public void instrument(JavalinConfig config) {
        config.requestLogger.http(
                (ctx, ms) -> record(ctx.method().name(), route(ctx), ctx.statusCode(), (long) (ms * 1_000_000)));
    }

    /** Counts one request answered outside Javalin's routes under the route it stands in for. */
    public void record(String method, String route, int status, long nanos) {
        timer(method, route, status).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The request timer of one method, route and status, registered on first use and then reused. */
    private Timer timer(String method, String route, int status) {
        return timers.computeIfAbsent(route, RouteTimers::new).get(method, status);
    }

    /**
     * The timers of one route, a handful (a method or two, a few statuses), found by a scan of an
     * array: a lookup by a composed key built a string on every request.
     */
    private final class RouteTimers {
        private record Keyed(String method, int status, Timer timer) {}

        private final String route;
        private volatile Keyed[] keyed = new Keyed[0];

        RouteTimers(String route) {
            this.route = route;
        }

        Timer get(String method, int status) {
            Timer t = find(keyed, method, status);
            return t != null ? t : add(method, status);
        }

        private synchronized Timer add(String method, int status) {
            Keyed[] current = keyed;
            Timer t = find(current, method, status);
            if (t == null) {
                t = Timer.builder("http_server_requests")
                        .tag("method", method)
                        .tag("route", route)
                        .tag("status", Integer.toString(status))
                        .register(registry);
                Keyed[] more = Arrays.copyOf(current, current.length + 1);
                more[current.length] = new Keyed(method, status, t);
                keyed = more;
            }
            return t;
        }

        private static Timer find(Keyed[] keyed, String method, int status) {
            for (Keyed k : keyed) {
                if (k.status() == status && k.method().equals(method)) {
                    return k.timer();
                }
            }
            return null;
        }
    }

    /**
     * The matched route pattern (bounded cardinality), or "unmatched" (404, 405 before routing). Read
     * from the operation the checks recorded once the route matched: by the time the request is
     * logged Javalin names the last handler's path, an after-handler's {@code *}.
     */
    private static String route(io.javalin.http.Context ctx) {
        String operation = ctx.attribute(JavalinExchange.OPERATION);
        if (operation != null) {
            return operation.substring(operation.indexOf(' ') + 1);
        }
        try {
            String path = ctx.endpointHandlerPath();
            return path.isEmpty() ? "unmatched" : path;
        } catch (IllegalStateException noEndpoint) {
            return "unmatched";
        }
    }

    /** Serves the metrics at {@code /metrics} in Prometheus's text format, to the callers {@code access} lets in. */
    public void install(Javalin app, ScrapeToken access) {
        app.get("/metrics", ctx -> {
            access.check(ctx.header("Authorization"));
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape());
        });
    }
}
