package io.lodestar.api.v1.naming;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.PATCH;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;

import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.NamingOp;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * {@code /nacos/v1/ns/instance}: register, deregister, update, patch and read one instance; the
 * instance list (which also subscribes a 1.x client to UDP pushes); heartbeats. Bodies and codes
 * as docs/http-api.md lists them, which are Nacos's.
 */
public final class InstanceRoutes {
    static final String BASE = "/nacos/v1/ns";
    private static final String PATH = BASE + "/instance";
    private static final String LIST = PATH + "/list";
    private static final String BEAT = PATH + "/beat";
    /** The admin's removal of any instance, a connection's included (Lodestar's own). */
    private static final String REMOVE_ANY = "/lodestar/v1/ns/instance";
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

    public void install(Routes routes) {
        routes.add(POST, PATH, NamingV1Requests::register, this::register)
                .add(DELETE, PATH, NamingV1Requests::deregister, this::deregister)
                .add(PUT, PATH, NamingV1Requests::register, this::update)
                .add(PATCH, PATH, NamingV1Requests::patch, this::patch)
                .add(GET, PATH, NamingV1Requests::instance, this::detail)
                .add(GET, LIST, NamingV1Requests::list, this::list)
                .add(PUT, BEAT, NamingV1Requests::beat, this::beat)
                .add(DELETE, REMOVE_ANY, NamingV1Requests::deregister, this::removeAny)
                // the common requests of the 1.x client, also taken in front of Javalin
                .fast(GET, LIST, exchange -> true, NamingV1Requests::list, this::list)
                .fast(PUT, BEAT, exchange -> true, NamingV1Requests::beat, this::beat)
                .fast(POST, PATH, exchange -> true, NamingV1Requests::register, this::register);
    }

    /** Answered at once for an ephemeral instance on its owner, once durable for a persistent one. */
    private void register(NamingOp.Register op, Answer answer) {
        answer.answerWhenDone(TEXT, naming.register(op.service(), op.instance()).thenApply(v -> "ok"));
    }

    private void deregister(NamingOp.Deregister op, Answer answer) {
        InstanceAddress a = op.address();
        answer.answerWhenDone(
                TEXT,
                naming.deregister(op.service(), a.cluster(), a.ip(), a.port(), op.ephemeral())
                        .thenApply(v -> "ok"));
    }

    private void removeAny(NamingOp.Deregister op, Answer answer) {
        answer.answerWhenDone(TEXT, naming.removeAny(op.service(), op.address()).thenApply(v -> "ok"));
    }

    /** Nacos 2.x's update: weight and enabled replaced, metadata merged into the old. */
    private void update(NamingOp.Register op, Answer answer) {
        answer.answerWhenDone(TEXT, naming.update(op.service(), op.instance()).thenApply(v -> "ok"));
    }

    /** Only the given fields change; metadata, when given, replaces the old whole. */
    private void patch(NamingOp.Patch op, Answer answer) {
        InstanceAddress a = op.address();
        answer.answerWhenDone(
                TEXT,
                naming.patch(op.service(), a.cluster(), a.ip(), a.port(), op.patch())
                        .thenApply(v -> "ok"));
    }

    private void detail(NamingOp.InstanceQuery op, Answer answer) {
        ServiceKey service = op.service();
        InstanceAddress a = op.address();
        Instance instance = naming.instance(service, a.cluster(), a.ip(), a.port())
                .orElseThrow(() -> new InstanceNotFoundException(service, a));
        answer.answerJson(
                NamingJson.detail(service, instance, instance.ephemeral() ? null : notProbed(service, instance)));
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

    private void list(NamingOp.ListQuery op, Answer answer) {
        if (op.udpPort() > 0 && udp != null) {
            // subscribe before reading, so a change made meanwhile is pushed rather than missed
            subscribe(answer.remoteAddr(), op.service(), op.clusters(), op.udpPort());
        }
        answer.answer(JSON, lists.json(op.service(), op.clusters(), op.clusterFilter(), op.healthyOnly()));
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
     * A heartbeat; a full beat that names another address or service is refused. An unknown
     * instance without a full beat answers code 20404 with HTTP 200, as Nacos does: the 1.x client
     * then registers it again.
     */
    private void beat(NamingOp.Beat op, Answer answer) {
        answer.answer(JSON, beatAnswer(op).getBytes(StandardCharsets.US_ASCII));
    }

    private String beatAnswer(NamingOp.Beat op) {
        BeatResult result = naming.beat(op.service(), op.cluster(), op.ip(), op.port(), op.beat());
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
