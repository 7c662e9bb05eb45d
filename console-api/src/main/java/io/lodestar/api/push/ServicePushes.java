package io.lodestar.api.push;

import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The push channel's service subscriptions: a connection that subscribed to a service hears
 * {@code {"type":"service-changed","namespaceId","groupName","serviceName"}} when its instances or
 * spec change (then it asks for the list with the ordinary GET, as for configs: push, then pull).
 *
 * <p>{@link #serviceChanged} is called on the naming notifier thread, which must not wait on a
 * socket: it only records the notice, and {@code sender} writes it. Notices for one connection are
 * coalesced while unsent (at most one per service), so a slow connection holds at most its own
 * subscriptions' worth, never a growing queue.
 */
final class ServicePushes {
    /** Where a connection's notices go: {@link WsPushSession}, or a test's recorder. */
    interface Subscriber {
        void sendJson(Map<String, ?> message);
    }

    private final Map<ServiceKey, Set<Subscriber>> subscribers = new ConcurrentHashMap<>();
    private final Map<Subscriber, Set<ServiceKey>> bySession = new ConcurrentHashMap<>();
    /** Per connection, the services changed since its last send; present while a send is scheduled. */
    private final Map<Subscriber, Set<ServiceKey>> pending = new ConcurrentHashMap<>();

    private final Executor sender;

    ServicePushes(Executor sender) {
        this.sender = sender;
    }

    /** Adds {@code services} to the connection's unless that makes more than {@code max}; false then. */
    boolean subscribe(Subscriber session, List<ServiceKey> services, int max) {
        Set<ServiceKey> mine = bySession.computeIfAbsent(session, s -> ConcurrentHashMap.newKeySet());
        synchronized (mine) {
            Set<ServiceKey> all = new HashSet<>(mine);
            all.addAll(services);
            if (all.size() > max) {
                return false;
            }
            mine.addAll(services);
        }
        services.forEach(k -> subscribers
                .computeIfAbsent(k, x -> ConcurrentHashMap.newKeySet())
                .add(session));
        return true;
    }

    void unsubscribe(Subscriber session, List<ServiceKey> services) {
        Set<ServiceKey> mine = bySession.get(session);
        if (mine != null) {
            services.forEach(mine::remove);
        }
        services.forEach(k -> drop(k, session));
    }

    /** The connection closed: all of its subscriptions go. */
    void forget(Subscriber session) {
        Set<ServiceKey> mine = bySession.remove(session);
        if (mine != null) {
            mine.forEach(k -> drop(k, session));
        }
        pending.remove(session);
    }

    /** How many connections subscribe to {@code service} (tests). */
    int subscribers(ServiceKey service) {
        Set<Subscriber> s = subscribers.get(service);
        return s == null ? 0 : s.size();
    }

    /** From the naming notifier: records a notice for each subscriber, sent on {@code sender}. */
    void serviceChanged(ServiceKey service) {
        Set<Subscriber> listening = subscribers.get(service);
        if (listening == null) {
            return;
        }
        for (Subscriber session : listening) {
            boolean[] schedule = {false};
            pending.compute(session, (s, services) -> {
                if (services == null) {
                    services = new HashSet<>();
                    schedule[0] = true;
                }
                services.add(service);
                return services;
            });
            if (schedule[0]) {
                sender.execute(() -> send(session));
            }
        }
    }

    private void send(Subscriber session) {
        Set<ServiceKey> changed = pending.remove(session);
        if (changed == null) {
            return;
        }
        for (ServiceKey k : new ArrayList<>(changed)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "service-changed");
            m.put("namespaceId", k.namespace());
            m.put("groupName", k.group());
            m.put("serviceName", k.service());
            session.sendJson(m);
        }
    }

    private void drop(ServiceKey k, Subscriber session) {
        subscribers.computeIfPresent(k, (x, set) -> {
            set.remove(session);
            return set.isEmpty() ? null : set;
        });
    }
}
