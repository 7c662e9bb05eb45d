package io.lodestar.api.v1.naming;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.http.Params;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.NamingService;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /nacos/v1/ns/instance}: register, deregister, update, patch and read one instance; the
 * instance list (which also subscribes a 1.x client to UDP pushes); heartbeats. Bodies and codes
 * as NACOS-WIRE.md describes them.
 */
public final class InstanceRoutes {
    static final String BASE = "/nacos/v1/ns";
    private static final String PATH = BASE + "/instance";
    private static final String LIST = PATH + "/list";
    private static final String BEAT = PATH + "/beat";
    /** Nacos's NamingResponseCode: the beat was taken / the instance is unknown, register again. */
    static final int CODE_OK = 10200;

    static final int CODE_NOT_FOUND = 20404;
    private static final String JSON = "application/json";
    private static final String TEXT = "text/plain";

    private final NamingService naming;
    private final PersistentHealthChecks health;
    private final UdpPusher udp;
    private final ListAnswers lists;

    /**
     * The routes of {@code naming}, whose persistent instances {@code health} probes; {@code udp}
     * may be null, then list queries subscribe nobody to pushes.
     */
    public InstanceRoutes(NamingService naming, PersistentHealthChecks health, UdpPusher udp) {
        this.naming = naming;
        this.health = health;
        this.udp = udp;
        this.lists = new ListAnswers(naming);
    }

    public void install(Javalin app) {
        app.post(PATH, JavalinExchange.handler(this::register));
        app.delete(PATH, this::deregister);
        app.put(PATH, this::update);
        app.patch(PATH, this::patch);
        app.get(PATH, this::detail);
        app.get(LIST, JavalinExchange.handler(this::list));
        app.put(BEAT, JavalinExchange.handler(this::beat));
    }

    /** The common requests of the 1.x client (list, beat, register), also taken in front of Javalin. */
    public void addFastPaths(FastPaths fast) {
        fast.add("GET", LIST, this::list).add("PUT", BEAT, this::beat).add("POST", PATH, this::register);
    }

    /** Answered at once for an ephemeral instance on its owner, once durable for a persistent one. */
    private void register(Exchange exchange) {
        ServiceKey service = NamingParams.service(exchange.params());
        Instance instance = NamingParams.instance(exchange.params());
        exchange.answerWhenDone(TEXT, naming.register(service, instance).thenApply(v -> "ok"));
    }

    private void deregister(Context ctx) {
        Params q = Params.of(ctx);
        ServiceKey service = NamingParams.service(q);
        String ip = NamingParams.required(q, "ip");
        int port = NamingParams.port(q);
        String cluster = NamingParams.cluster(q);
        boolean ephemeral = NamingParams.bool(q, "ephemeral", true);
        ctx.future(
                () -> naming.deregister(service, cluster, ip, port, ephemeral).thenAccept(v -> ctx.result("ok")));
    }

    /** Nacos 2.x's update: weight and enabled replaced, metadata merged into the old. */
    private void update(Context ctx) {
        Params q = Params.of(ctx);
        ServiceKey service = NamingParams.service(q);
        Instance instance = NamingParams.instance(q);
        ctx.future(() -> naming.update(service, instance).thenAccept(v -> ctx.result("ok")));
    }

    /** Only the given fields change; metadata, when given, replaces the old whole. */
    private void patch(Context ctx) {
        Params q = Params.of(ctx);
        ServiceKey service = NamingParams.service(q);
        String ip = NamingParams.required(q, "ip");
        int port = NamingParams.port(q);
        String cluster = NamingParams.cluster(q);
        if (q.get("healthy") != null) {
            // Nacos 1.4 lets PATCH set health; here heartbeats or probes own it, and a manual
            // change goes through the one route that checks who owns it
            throw new InvalidRequestException("healthy", "cannot be patched; use PUT " + BASE + "/health/instance");
        }
        InstancePatch patch = new InstancePatch(
                NamingParams.optionalNumber(q, "weight"), NamingParams.enabled(q), NamingParams.optionalMetadata(q));
        ctx.future(() -> naming.patch(service, cluster, ip, port, patch).thenAccept(v -> ctx.result("ok")));
    }

    private void detail(Context ctx) {
        Params q = Params.of(ctx);
        ServiceKey service = NamingParams.service(q);
        String ip = NamingParams.required(q, "ip");
        int port = NamingParams.port(q);
        String cluster = NamingParams.cluster(q);
        Instance instance = naming.instance(service, cluster, ip, port)
                .orElseThrow(() -> new InstanceNotFoundException(service, new InstanceAddress(cluster, ip, port)));
        ctx.json(NamingJson.detail(service, instance, instance.ephemeral() ? null : notProbed(service, instance)));
    }

    private Optional<String> notProbed(ServiceKey service, Instance instance) {
        HealthCheckSettings checker = naming.service(service)
                .flatMap(s -> s.clusters().stream()
                        .filter(c -> c.name().equals(instance.cluster()))
                        .findFirst())
                .map(Service.ClusterSummary::healthCheck)
                .orElse(HealthCheckSettings.DEFAULT);
        return health.notProbedBecause(service, instance, checker);
    }

    private void list(Exchange exchange) {
        exchange.answer(JSON, listJson(exchange.params(), exchange.remoteAddr()));
    }

    private byte[] listJson(Params q, String remoteAddr) {
        ServiceKey service = NamingParams.service(q);
        String clusters = q.get("clusters");
        clusters = clusters == null ? "" : clusters;
        Set<String> filter = NamingParams.clusterSet(clusters);
        for (String c : filter) {
            NamingValidation.checkCluster("clusters", c);
        }
        boolean healthyOnly = NamingParams.bool(q, "healthyOnly", false);
        int udpPort = NamingParams.integer(q, "udpPort", 0, 0, NamingValidation.MAX_PORT);
        // clientIP and app are informative only (see subscribe)
        if (udpPort > 0 && udp != null) {
            // subscribe before reading, so a change made meanwhile is pushed rather than missed
            subscribe(remoteAddr, service, clusters, udpPort);
        }
        return lists.json(service, clusters, filter, healthyOnly);
    }

    /**
     * Subscribes the client to pushes of this service at {@code udpPort} on <em>the address the
     * request came from</em>. The client also reports a {@code clientIP}, which Nacos pushes to;
     * that is not trusted: anyone could name a third party's address and port, and the server
     * would then send it a stream of datagrams (several per change, with resends) that it never
     * asked for — a reflection tool. A client behind NAT cannot be pushed to either way and falls
     * back to polling every {@link NamingJson#CACHE_MILLIS}.
     */
    private void subscribe(String remoteAddr, ServiceKey service, String clusters, int udpPort) {
        remoteAddress(remoteAddr).ifPresent(address -> udp.subscribe(service, clusters, address, udpPort));
    }

    /** The connection's peer address (as the socket gives it, never from a header) as an address. */
    private static Optional<InetAddress> remoteAddress(String remote) {
        if (remote == null || remote.isEmpty()) {
            return Optional.empty();
        }
        if (remote.startsWith("[") && remote.endsWith("]")) {
            remote = remote.substring(1, remote.length() - 1);
        }
        // a literal address only, so resolving it never queries DNS
        if (!remote.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':' || c == '%')) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(remote));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /**
     * A heartbeat. The address comes from the query ({@code ip}, {@code port}, {@code clusterName})
     * or, where absent, from the full beat ({@code beat}, the 1.x client's BeatInfo JSON; absent for
     * light beats); a full beat that names another address or service is refused. An unknown
     * instance without a full beat answers code 20404 with HTTP 200, as Nacos does: the 1.x client
     * then registers it again.
     */
    private void beat(Exchange exchange) {
        exchange.answer(JSON, beatAnswer(exchange.params()).getBytes(StandardCharsets.US_ASCII));
    }

    private String beatAnswer(Params q) {
        ServiceKey service = NamingParams.service(q);
        String ip = q.get("ip");
        ip = ip == null || ip.isBlank() ? null : ip;
        String portParam = q.get("port");
        Integer port = portParam == null || portParam.isBlank() ? null : NamingParams.port("port", portParam);
        String raw = q.get("beat");
        Optional<BeatInfo> beat =
                raw == null || raw.isBlank() ? Optional.empty() : Optional.of(NamingParams.beat(raw, ip, port));
        if (beat.isPresent()) {
            ip = ip != null ? ip : beat.get().ip();
            port = port != null ? port : beat.get().port();
        }
        if (ip == null) {
            throw new InvalidRequestException("ip", "is required");
        }
        if (port == null) {
            throw new InvalidRequestException("port", "is required");
        }
        String cluster = q.get("clusterName");
        if ((cluster == null || cluster.isBlank()) && beat.isPresent()) {
            cluster = beat.get().cluster();
        }
        BeatResult result = naming.beat(service, cluster, ip, port, beat);
        // numbers and a boolean only: written by hand, the answer a client gets most often costs no
        // serializer (Jackson took a fifth of a beat's time)
        if (result.status() == BeatResult.Status.UNKNOWN) {
            // without lightBeatEnabled the client's next beats are full ones, which register it again
            return "{\"clientBeatInterval\":" + result.clientBeatIntervalMs() + ",\"code\":" + CODE_NOT_FOUND + "}";
        }
        return "{\"clientBeatInterval\":" + result.clientBeatIntervalMs() + ",\"code\":" + CODE_OK
                + ",\"lightBeatEnabled\":true}";
    }
}
