package io.lodestar.api.grpc;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.ServerTransportFilter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 */
final class Connections extends ServerTransportFilter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Connections.class);
    static final Attributes.Key<Connection> CONNECTION = Attributes.Key.create("lodestar.connection");
    static final long SCAN_MS = 3_000;
    static final long IDLE_MS = 20_000;
    static final long DETECTION_TIMEOUT_MS = 5_000;

    private final Map<String, Connection> byId = new ConcurrentHashMap<>();
    private final List<Consumer<Connection>> closeListeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService ejector = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "grpc-connection-ejector");
        t.setDaemon(true);
        return t;
    });

    Connections() {
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
        Connection c = new Connection(System.currentTimeMillis() + "_" + ip + "_" + port, ip, port);
        byId.put(c.id(), c);
        return attrs.toBuilder().set(CONNECTION, c).build();
    }

    @Override
    public void transportTerminated(Attributes attrs) {
        Connection c = attrs.get(CONNECTION);
        if (c != null) {
            close(c, "the client's transport ended");
        }
    }

    /** Closes {@code c} and tells every close listener, once. */
    void close(Connection c, String why) {
        c.close(why);
        if (byId.remove(c.id()) == null) {
            return;
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

    int registeredCount() {
        return (int) byId.values().stream().filter(Connection::registered).count();
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
