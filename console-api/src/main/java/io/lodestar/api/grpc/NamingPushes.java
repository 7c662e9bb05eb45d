package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.delivery.LatestUntilAcked;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.error.LimitExceededException;
import io.lodestar.naming.model.ServiceKey;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The gRPC naming subscriptions on this node and their {@code NotifySubscriberRequest} pushes: when
 * a service changes, each subscriber gets the service's list for the clusters it asked for, sent
 * until acknowledged ({@link LatestUntilAcked}).
 */
final class NamingPushes {
    /** How long a push waits for the client's answer. */
    static final long PUSH_ACK_MS = 5_000;

    static final int PUSH_ATTEMPTS = 3;
    static final long PUSH_RETRY_MS = 1_000;

    /** One subscription: the unit a newer push supersedes an older one in. */
    private record Target(Connection connection, ServiceKey service) {}

    /** One connection's subscriptions: closed once its connection closed, so none is added after. */
    private static final class Subscriber {
        final Set<ServiceKey> services = new HashSet<>(); // guarded by this
        boolean closed; // guarded by this
    }

    /** Per service, its subscribers on this node with the clusters each asked for. */
    private final Map<ServiceKey, Map<Connection, String>> subscribers = new ConcurrentHashMap<>();

    private final Map<Connection, Subscriber> byConnection = new ConcurrentHashMap<>();
    /** A service's list for a clusters string, as {@code serviceInfo} in a push or a query answer. */
    private final BiFunction<ServiceKey, String, ObjectNode> serviceInfo;

    private final LatestUntilAcked<Target, ObjectNode> delivery;

    private final Metrics metrics;
    private final int maxPerConnection;

    NamingPushes(
            BiFunction<ServiceKey, String, ObjectNode> serviceInfo,
            Metrics metrics,
            Limits limits,
            ScheduledExecutorService timer) {
        this.serviceInfo = serviceInfo;
        this.metrics = metrics;
        this.maxPerConnection = limits.intValue(Limit.GRPC_SUBSCRIPTIONS_PER_CONNECTION);
        this.delivery = new LatestUntilAcked<>(
                NamingPushes::send,
                new LatestUntilAcked.Outcomes<>() {
                    @Override
                    public void retried(Target target) {
                        metrics.grpcPush("NotifySubscriberRequest", "retried");
                    }

                    @Override
                    public void gaveUp(Target target, Throwable lastFailure) {
                        // counted as failed by the connection; the client's own poll covers it
                    }
                },
                timer,
                PUSH_ATTEMPTS,
                TimeUnit.MILLISECONDS.toNanos(PUSH_RETRY_MS));
    }

    private static java.util.concurrent.CompletableFuture<?> send(Target target, ObjectNode info) {
        Connection c = target.connection();
        Reply notice = Reply.push("NotifySubscriberRequest", "naming", c.nextPushId());
        notice.body().set("serviceInfo", info);
        return c.push(notice, PUSH_ACK_MS);
    }

    /**
     * Subscribes the connection to the service's changes, for {@code clusters} (comma-separated, ""
     * for all). A connection subscribed to {@link Limit#GRPC_SUBSCRIPTIONS_PER_CONNECTION} services
     * is refused another with a {@link LimitExceededException}.
     */
    void subscribe(Connection connection, ServiceKey service, String clusters) {
        Subscriber subscriber = byConnection.computeIfAbsent(connection, c -> new Subscriber());
        synchronized (subscriber) {
            if (subscriber.closed) {
                return;
            }
            if (!subscriber.services.contains(service) && subscriber.services.size() >= maxPerConnection) {
                metrics.limitRefused(Limit.GRPC_SUBSCRIPTIONS_PER_CONNECTION);
                throw LimitExceededException.tooMany(
                        Limit.GRPC_SUBSCRIPTIONS_PER_CONNECTION.key(),
                        maxPerConnection,
                        "this connection's service subscriptions");
            }
            subscriber.services.add(service);
            subscribers.computeIfAbsent(service, k -> new ConcurrentHashMap<>()).put(connection, clusters);
        }
    }

    void unsubscribe(Connection connection, ServiceKey service) {
        Subscriber subscriber = byConnection.get(connection);
        if (subscriber != null) {
            synchronized (subscriber) {
                subscriber.services.remove(service);
            }
        }
        subscribers.computeIfPresent(service, (k, subs) -> {
            subs.remove(connection);
            return subs.isEmpty() ? null : subs;
        });
        delivery.forget(new Target(connection, service));
    }

    /** The connections subscribed to {@code service} here, each with the clusters it asked for. */
    Map<Connection, String> subscribers(ServiceKey service) {
        Map<Connection, String> subs = subscribers.get(service);
        return subs == null ? Map.of() : Map.copyOf(subs);
    }

    /** The connection closed: its subscriptions and pushes in flight go. */
    void closed(Connection connection) {
        Subscriber subscriber = byConnection.remove(connection);
        if (subscriber == null) {
            return;
        }
        synchronized (subscriber) {
            subscriber.closed = true;
        }
        for (ServiceKey service : List.copyOf(subscribers.keySet())) {
            unsubscribe(connection, service);
        }
        delivery.forgetIf(t -> t.connection() == connection);
    }

    /** Pushes the service's new list to this node's subscribers of it (on the naming notifier thread). */
    void serviceChanged(ServiceKey service) {
        Map<Connection, String> subs = subscribers.get(service);
        if (subs == null || subs.isEmpty()) {
            return;
        }
        Map<String, ObjectNode> infos = new HashMap<>(); // one list per clusters string asked for
        subs.forEach((connection, clusters) -> delivery.deliver(
                new Target(connection, service),
                infos.computeIfAbsent(clusters, cs -> serviceInfo.apply(service, cs))));
    }
}
