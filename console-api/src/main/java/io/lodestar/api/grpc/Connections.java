package io.lodestar.api.grpc;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.ServerTransportFilter;
import io.grpc.stub.ServerCallStreamObserver;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.metrics.Metrics;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client connections of this node. A connection is named when its HTTP/2 transport is ready
 * ({@code <millis>_<ip>_<port>}, as Nacos names them) and forgotten when the transport ends or the
 * connection is ejected: every close listener then hears of it once, so what belongs to the
 * connection (listens, subscriptions, instances) goes with it.
 *
 * <p>Ejection, as Nacos does it: every {@link #SCAN_MS}, a registered connection silent for
 * {@link #IDLE_MS} is asked to answer a {@code ClientDetectionRequest} within {@link
 * #DETECTION_TIMEOUT_MS}; one that does not is closed. A healthy client is never silent that
 * long (it health-checks every 5 s). A transport that sets up no connection within {@link
 * #IDLE_MS} is closed likewise.
 *
 * <p>Sending a client elsewhere ({@link #reset}), as Nacos does: a {@code ConnectResetRequest},
 * after which the client connects to the server named in it, or to another of the servers it was
 * given. A node sends a connection set up beyond its limit away at once, and operators shed
 * connections of a loaded node with {@link #shed}.
 */
final class Connections extends ServerTransportFilter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Connections.class);
    static final Attributes.Key<Connection> CONNECTION = Attributes.Key.create("lodestar.connection");
    static final long SCAN_MS = 3_000;
    static final long IDLE_MS = 20_000;
    static final long DETECTION_TIMEOUT_MS = 5_000;
    /** How long a client sent elsewhere has to answer before its connection is closed anyway. */
    static final long RESET_WAIT_MS = 3_000;

    /** What became of a {@code ConnectionSetupRequest}. */
    enum Admission {
        SET_UP,
        /** The connection was set up already, or closed meanwhile: nothing changed. */
        IGNORED,
        /** The node holds its limit of connections: the client is being sent elsewhere. */
        SENT_ELSEWHERE
    }

    private final Metrics metrics;
    private final int maxConnections; // 0: no limit
    /** The most bytes of labels a client's setup may carry: they are kept while the connection lives. */
    final int maxSetupLabelBytes;

    private final long maxUnreadPushBytes;

    private final AtomicInteger registered = new AtomicInteger();

    private final Map<String, Connection> byId = new ConcurrentHashMap<>();
    private final List<Consumer<Connection>> closeListeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService ejector = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grpc-connection-ejector");
        t.setDaemon(true);
        return t;
    });

    Connections(Metrics metrics, Limits limits) {
        this.maxConnections = limits.intValue(Limit.GRPC_CONNECTIONS);
        this.maxSetupLabelBytes = limits.intValue(Limit.GRPC_SETUP_LABEL_BYTES);
        this.maxUnreadPushBytes = limits.get(Limit.GRPC_UNREAD_PUSH_BYTES);
        this.metrics = metrics;
        ejector.scheduleWithFixedDelay(this::ejectSilent, SCAN_MS, SCAN_MS, TimeUnit.MILLISECONDS);
    }

    /** Calls {@code listener} once for each connection that closes, on the closing thread. */
    void onClose(Consumer<Connection> listener) {
        closeListeners.add(listener);
    }

    @Override
    public Attributes transportReady(Attributes attrs) {
        SocketAddress remote = attrs.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        String ip = "unknown";
        int port = 0;
        if (remote instanceof InetSocketAddress inet) {
            ip = inet.getAddress() == null
                    ? inet.getHostString()
                    : inet.getAddress().getHostAddress();
            port = inet.getPort();
        }
        Connection c = new Connection(
                System.currentTimeMillis() + "_" + ip + "_" + port, ip, port, metrics, maxUnreadPushBytes);
        byId.put(c.id(), c);
        return attrs.toBuilder().set(CONNECTION, c).build();
    }

    @Override
    public void transportTerminated(Attributes attrs) {
        // null when the transport never became ready, e.g. a client whose TLS handshake failed
        Connection c = attrs == null ? null : attrs.get(CONNECTION);
        if (c != null) {
            close(c, "the client's transport ended");
        }
    }

    /** Counts a refusal by {@code limit}. */
    void refused(Limit limit) {
        metrics.limitRefused(limit);
    }

    /**
     * Sets {@code c} up with its bi-stream, unless the node already holds {@code maxConnections}:
     * then the client is sent elsewhere.
     */
    Admission setUp(Connection c, Connection.Setup setup, ServerCallStreamObserver<Payload> stream) {
        if (!c.register(setup, stream)) {
            return Admission.IGNORED;
        }
        // counted after registering: a close that raced the registration either saw it (and
        // uncounts it) or made it fail
        int now = registered.incrementAndGet();
        if (maxConnections > 0 && now > maxConnections) {
            LOG.info(
                    "{} from {} sent to another server: this node holds its limit of {} connections "
                            + "(grpc.connections)",
                    c,
                    c.remoteIp(),
                    maxConnections);
            metrics.limitRefused(Limit.GRPC_CONNECTIONS);
            reset(c, null, "this node holds its limit of " + maxConnections + " connections");
            return Admission.SENT_ELSEWHERE;
        }
        return Admission.SET_UP;
    }

    /**
     * Sends the client of {@code c} to {@code redirect} (an HTTP address {@code host:port}; null: to
     * another server the client knows). The future completes when the client answered, or failed
     * to within {@link #RESET_WAIT_MS}. The client closes {@code c} itself once connected
     * elsewhere; closing it here at once would make the client reconnect at random in place of
     * where it was sent, so it is closed only {@link #RESET_WAIT_MS} after the answer.
     */
    CompletableFuture<Void> reset(Connection c, GrpcApi.Redirect redirect, String why) {
        c.markSentElsewhere();
        Reply request = Reply.push("ConnectResetRequest", "internal", c.nextPushId());
        if (redirect != null) {
            request.with("serverIp", redirect.host()).with("serverPort", Integer.toString(redirect.port()));
        }
        LOG.debug("sending the client of {} elsewhere: {}", c, why);
        CompletableFuture<Void> answered = c.push(request, RESET_WAIT_MS);
        answered.whenComplete((ok, e) -> {
            try {
                ejector.schedule(
                        () -> close(c, "sent elsewhere: " + why), e == null ? RESET_WAIT_MS : 0, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException stopping) {
                close(c, "sent elsewhere: " + why);
            }
        });
        return answered.exceptionally(e -> null);
    }

    /**
     * Sends clients elsewhere until at most {@code keep} connections are left set up here; returns
     * how many were sent.
     */
    int shed(int keep, GrpcApi.Redirect redirect) {
        int sent = 0;
        for (Connection c : byId.values()) {
            if (registered.get() - sent <= keep) {
                break;
            }
            if (c.registered() && !c.closed() && !c.sentElsewhere()) {
                reset(c, redirect, "an operator asked for at most " + keep + " connections here");
                sent++;
            }
        }
        LOG.info(
                "sent {} gRPC clients to {}, keeping at most {}",
                sent,
                redirect == null ? "their other servers" : redirect,
                keep);
        return sent;
    }

    /**
     * Sends up to {@code count} clients to {@code redirect}, newest first among the connections set
     * up at least {@code minAgeMs} ago and not sent elsewhere already; returns how many were sent.
     * The newest go first: after a member restarts they are the ones that fled it, and the
     * long-settled clients stay undisturbed. The age floor leaves alone a client that has only just
     * arrived (it may be redoing its subscriptions, or have just been moved here).
     */
    int moveNewest(int count, GrpcApi.Redirect redirect, long minAgeMs, String why) {
        if (count <= 0) {
            return 0;
        }
        long setUpBefore = System.currentTimeMillis() - minAgeMs;
        List<Connection> candidates = byId.values().stream()
                .filter(c -> c.movable() && c.setUpAt() <= setUpBefore)
                .sorted(Comparator.comparingLong(Connection::setUpAt).reversed())
                .limit(count)
                .toList();
        for (Connection c : candidates) {
            reset(c, redirect, why);
        }
        return candidates.size();
    }

    /** Connections set up, open and not sent elsewhere: the clients this node serves from now on. */
    int movableCount() {
        int n = 0;
        for (Connection c : byId.values()) {
            if (c.movable()) {
                n++;
            }
        }
        return n;
    }

    /** Closes {@code c} and tells every close listener, once. */
    void close(Connection c, String why) {
        c.close(why);
        if (byId.remove(c.id()) == null) {
            return;
        }
        if (c.registered()) {
            registered.decrementAndGet();
        }
        LOG.debug("{} closed: {}", c, why);
        for (Consumer<Connection> l : closeListeners) {
            try {
                l.accept(c);
            } catch (RuntimeException e) {
                LOG.warn("cleaning up after {} failed", c, e);
            }
        }
    }

    Collection<Connection> all() {
        return byId.values();
    }

    /** The connection with this id, or null. */
    Connection get(String id) {
        return byId.get(id);
    }

    int registeredCount() {
        return registered.get();
    }

    private void ejectSilent() {
        long now = System.currentTimeMillis();
        for (Connection c : byId.values()) {
            if (now - c.lastActive() < IDLE_MS) {
                continue;
            }
            if (!c.registered()) {
                close(c, "no connection set up within " + IDLE_MS + " ms");
                continue;
            }
            c.push(Reply.push("ClientDetectionRequest", "internal", c.nextPushId()), DETECTION_TIMEOUT_MS)
                    .whenComplete((ok, e) -> {
                        if (e != null) {
                            close(c, "silent for " + IDLE_MS + " ms and no answer to a client detection");
                        }
                    });
        }
    }

    @Override
    public void close() {
        ejector.shutdownNow();
    }
}
