package io.lodestar.api.server;

import io.javalin.Javalin;
import io.javalin.config.SizeUnit;
import io.javalin.http.MethodNotAllowedResponse;
import io.javalin.http.NotFoundResponse;
import io.lodestar.api.auth.AccessRules;
import io.lodestar.api.auth.Auth;
import io.lodestar.api.balance.ConnectionBalancer;
import io.lodestar.api.cluster.HealthRoutes;
import io.lodestar.api.cluster.MembershipRoutes;
import io.lodestar.api.cluster.NodeReadiness;
import io.lodestar.api.console.ConsoleRoutes;
import io.lodestar.api.grpc.ConnectionRoutes;
import io.lodestar.api.grpc.GrpcApi;
import io.lodestar.api.http.AddressConnectionLimit;
import io.lodestar.api.http.AddressThreadLimit;
import io.lodestar.api.http.BodyLimit;
import io.lodestar.api.http.ErrorMapping;
import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.http.Routes;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.metrics.ScrapeToken;
import io.lodestar.api.push.PushRoutes;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.api.snapshot.SnapshotRoutes;
import io.lodestar.api.tls.ServerTls;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.api.v1.ConfigRoutes;
import io.lodestar.api.v1.ConfigTransferRoutes;
import io.lodestar.api.v1.HistoryRoutes;
import io.lodestar.api.v1.ListenerRoutes;
import io.lodestar.api.v1.NamespaceRoutes;
import io.lodestar.api.v1.auth.AuthRoutes;
import io.lodestar.api.v1.naming.ClusterRoutes;
import io.lodestar.api.v1.naming.InstanceRoutes;
import io.lodestar.api.v1.naming.NamingHealthRoutes;
import io.lodestar.api.v1.naming.OperatorRoutes;
import io.lodestar.api.v1.naming.ServiceRoutes;
import io.lodestar.api.v2.ConfigV2Routes;
import io.lodestar.api.v2.NamingV2Routes;
import io.lodestar.api.views.CatalogRoutes;
import io.lodestar.api.views.ClusterGather;
import io.lodestar.api.views.DeliveryRoutes;
import io.lodestar.api.views.NodeViews;
import io.lodestar.api.views.PrometheusRoutes;
import io.lodestar.api.views.ViewRoutes;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.namespace.NamespaceService;
import io.lodestar.config.push.PushHub;
import io.lodestar.config.service.ConfigSearch;
import io.lodestar.config.service.ConfigService;
import io.lodestar.config.transfer.ConfigTransfer;
import io.lodestar.kv.KvStore;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.lodestar.naming.service.NamingService;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.StatisticsHandler;
import org.eclipse.jetty.util.component.LifeCycle;

/** Builds the HTTP server: every route, and the error mapping. */
public final class HttpApi {
    /**
     * Pending-connection backlog of the HTTP port (the kernel caps it at {@code net.core.somaxconn}).
     * Jetty's default leaves it to Java's 50, which overflows when a fleet of clients reconnects at
     * once after a restart and re-arms thousands of long-polls: the surplus SYNs are dropped and
     * those clients wait out TCP's retransmission back-off (1 s, 3 s, 7 s ...).
     */
    private static final int ACCEPT_QUEUE = 8192;

    /**
     * How long a stop waits for the requests in flight (the statistics handler counts them) before
     * it closes their connections: longer than a write may wait for its commit (the store's
     * request timeout, 5 s by default), so a client whose write was under way when the server was
     * told to stop gets its answer rather than a reset connection. New requests get 503 meanwhile.
     */
    static final long DRAIN_MILLIS = 10_000;

    private HttpApi() {}

    /** Everything the routes serve, built once by the server ({@code LodestarServer}); {@code udp} may be null. */
    public record Services(
            KvStore store,
            ConfigService configs,
            ConfigSearch search,
            ConfigTransfer transfer,
            NamespaceService namespaces,
            LongPollRegistry listeners,
            PushHub push,
            NamingService naming,
            PersistentHealthChecks health,
            UdpPusher udp,
            NodeReadiness readiness,
            Metrics metrics,
            GrpcApi grpc, // null when gRPC is off
            ConnectionBalancer balance, // null when gRPC is off
            Auth auth) {}

    /**
     * The server, not started, listening on {@code host:port} once started: HTTPS only with {@code
     * tls}, plain HTTP when it is null. Every request passes {@code checks} first, whichever way it
     * comes in; {@code /metrics} is served to {@code scrapers}.
     */
    public static Javalin create(
            Services s,
            RequestChecks checks,
            String host,
            int port,
            Limits limits,
            ScrapeToken scrapers,
            ServerTls tls) {
        Metrics metrics = s.metrics();
        FastPaths fast = new FastPaths(metrics::record, checks);
        long maxBody = limits.get(Limit.HTTP_BODY_BYTES);
        Javalin app = Javalin.create(config -> {
            config.jetty.addConnector((server, httpConfig) -> {
                httpConfig.setMinRequestDataRate(limits.get(Limit.HTTP_BODY_MIN_RATE));
                ServerConnector connector = tls == null
                        ? new ServerConnector(server, new HttpConnectionFactory(httpConfig))
                        : new ServerConnector(server, tls.forHttp(), new HttpConnectionFactory(secure(httpConfig)));
                connector.setHost(host);
                connector.setPort(port);
                connector.setAcceptQueueSize(ACCEPT_QUEUE);
                connector.addBean(new ConnectionLimit(limits.intValue(Limit.HTTP_CONNECTIONS), connector));
                connector.addBean(new AddressConnectionLimit(
                        limits.intValue(Limit.HTTP_CONNECTIONS_PER_ADDRESS), metrics::limitRefused));
                return connector;
            });
            // multipart parts (an import's archive) are held in memory up to the body limit, never spooled to disk
            config.jetty.multipartConfig.maxFileSize(maxBody, SizeUnit.BYTES);
            config.jetty.multipartConfig.maxTotalRequestSize(maxBody, SizeUnit.BYTES);
            config.jetty.multipartConfig.maxInMemoryFileSize(
                    (int) Math.min(Integer.MAX_VALUE, maxBody), SizeUnit.BYTES);
            metrics.instrument(config);
            config.showJavalinBanner = false;
            ConsoleRoutes.configure(config);
            config.http.prefer405over404 = true;
            config.http.maxRequestSize = maxBody;
            // Answers are small and Nacos clients never ask for gzip; the wrapper cost CPU on every answer
            config.http.disableCompression();
            // the commonest requests are answered before the servlet context and session scopes and
            // Javalin's servlet (see FastPaths), but after the statistics handler, which counts the
            // requests in flight that a graceful stop waits for
            config.jetty.modifyServer(server -> {
                StatisticsHandler stats = server.getChildHandlerByClass(StatisticsHandler.class);
                if (stats == null) { // Javalin's default server has one; a future one might not
                    stats = new StatisticsHandler();
                    server.insertHandler(stats);
                }
                // outermost first: the body bound, then the per-address thread bound, then the fast path
                stats.insertHandler(fast);
                stats.insertHandler(
                        new AddressThreadLimit(limits.intValue(Limit.HTTP_THREADS_PER_ADDRESS), metrics::limitRefused));
                stats.insertHandler(new BodyLimit(maxBody, metrics::limitRefused));
                metrics.requestsInFlight(stats::getRequestsActive);
                // only once started: a stop that drains after a failed start (a port in use) throws
                // in place of the start's own failure
                server.addEventListener(new LifeCycle.Listener() {
                    @Override
                    public void lifeCycleStarted(LifeCycle started) {
                        server.setStopTimeout(DRAIN_MILLIS);
                    }
                });
            });
        });
        ErrorMapping.install(app);
        // once matched, so that the check knows the route that will serve the request, not its spelling
        app.beforeMatched(ctx -> {
            Exchange exchange = JavalinExchange.of(ctx);
            if (JavalinExchange.unrouted(exchange)) {
                // what prefer405over404 answered before the console's files made every request match
                throw routesServe(app, ctx.path())
                        ? new MethodNotAllowedResponse()
                        : new NotFoundResponse("no endpoint serves " + ctx.method() + " " + ctx.path());
            }
            checks.check(exchange);
        });
        app.afterMatched(ctx -> checks.completed(JavalinExchange.of(ctx), ctx.statusCode()));
        app.wsBeforeUpgrade(ctx -> checks.check(JavalinExchange.upgrade(ctx)));
        AuthRoutes.install(app, s.auth());
        ConsoleRoutes.install(app);
        PushRoutes push = PushRoutes.install(
                app, s.push(), s.auth()::checkRead, s.naming()::subscribe, s.auth()::checkServiceRead);
        NodeViews views = new NodeViews(s.store(), s.readiness(), s.listeners(), push, s.grpc(), s.udp(), s.naming());
        ClusterGather gather = new ClusterGather(
                        s.store(), views::answer, ClusterGather.DEFAULT_DEADLINE_MS, host + ":" + port)
                .serve();
        HealthRoutes.install(app, s.store(), s.readiness(), () -> withConnections(gather.memberStatus(), s.balance()));
        MembershipRoutes.install(app, s.store());
        SnapshotRoutes.install(app, s.store());
        metrics.install(app, scrapers);
        NamespaceRoutes.install(app, s.namespaces(), s.naming()::serviceCounts);
        OperatorRoutes.install(app, s.store(), s.naming(), s.udp(), s.readiness());
        if (s.grpc() != null) {
            ConnectionRoutes.install(
                    app,
                    s.grpc(),
                    () -> s.store().cluster().members().stream()
                            .map(m -> m.httpAddress())
                            .filter(Objects::nonNull)
                            .collect(Collectors.toSet()));
        }
        // every route that acts on configs or services: parsed once, checked, then served
        Routes routes = new Routes(app, fast, checks);
        ConfigRoutes.install(routes, s.configs(), s.search(), new ConfigTransferRoutes(s.transfer()), push::pulled);
        ConfigV2Routes.install(routes, s.configs());
        HistoryRoutes.install(routes, s.configs());
        ListenerRoutes.install(routes, s.listeners());
        new InstanceRoutes(s.naming(), s.health(), s.udp()).install(routes);
        ServiceRoutes.install(routes, s.naming(), s.health());
        ClusterRoutes.install(routes, s.naming());
        NamingHealthRoutes.install(routes, s.naming());
        NamingV2Routes.install(routes, s.naming());
        ViewRoutes.install(routes, gather, s.naming());
        CatalogRoutes.install(routes, s.naming());
        PrometheusRoutes.install(routes, s.naming());
        DeliveryRoutes.install(routes, gather, s.configs());
        AccessRules.requireDeclared(operations(app, fast), routes.typed());
        return app;
    }

    /** {@code plain} for requests that came over TLS: they are marked secure, with the scheme https. */
    private static HttpConfiguration secure(HttpConfiguration plain) {
        HttpConfiguration https = new HttpConfiguration(plain);
        SecureRequestCustomizer customizer = new SecureRequestCustomizer();
        // the check refuses a request whose Host the certificate does not name: with one certificate
        // it protects nothing, and would refuse a client that reaches the node by an unnamed address
        // while trusting its certificate explicitly (nacos-client trusts any unless told otherwise)
        customizer.setSniHostCheck(false);
        https.addCustomizer(customizer);
        return https;
    }

    /** Every operation {@code app} and {@code fast} serve, as {@link io.lodestar.api.auth.AccessRules} names them. */
    public static java.util.Set<String> operations(Javalin app, FastPaths fast) {
        java.util.Set<String> out = new java.util.TreeSet<>(fast.operations());
        app.unsafeConfig().pvt.internalRouter.allHttpHandlers().stream()
                .map(h -> h.getEndpoint())
                .filter(e -> e.getMethod().isHttpMethod())
                .forEach(e -> out.add(e.getMethod().name() + ' ' + e.getPath()));
        app.unsafeConfig().pvt.wsRouter.getWsPathMatcher().allEntries().stream()
                .filter(e -> e.getType() == io.javalin.websocket.WsHandlerType.WEBSOCKET)
                .forEach(e -> out.add("WS " + e.getPath()));
        return out;
    }

    /** Whether a route of any method serves {@code path}. */
    private static boolean routesServe(Javalin app, String path) {
        return app.unsafeConfig().pvt.internalRouter.allHttpHandlers().stream().anyMatch(e -> e.matches(path));
    }

    /**
     * Each member's status with the nacos-client connections it reported to the connection balance's
     * last round ({@code grpcConnections}; absent for a member that did not report, or with gRPC off).
     */
    private static CompletableFuture<Map<String, Map<String, Object>>> withConnections(
            CompletableFuture<Map<String, Map<String, Object>>> status, ConnectionBalancer balance) {
        if (balance == null) {
            return status;
        }
        return status.thenApply(members -> {
            Map<String, Integer> counts = balance.connectionsByMember();
            members.forEach((address, member) -> {
                Integer n = counts.get(address);
                if (n != null) {
                    member.put("grpcConnections", n);
                }
            });
            return members;
        });
    }
}
