package io.lodestar.api.grpc;

import io.lodestar.error.Failures;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.LimitExceededException;
import io.lodestar.naming.SmallSets;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ephemeral instances that gRPC connections hold on this node.
 *
 * <p>An ephemeral instance registered over gRPC belongs to its connection. It goes into the one
 * registry as a heartbeat instance would (so Distro replicates it, and it is in the HTTP lists, the
 * UDP pushes and DNS), with this node as its holder ({@link NamingService#registerHeld}): it needs
 * no beats while this node lives. When the connection closes this node lets go of it at once
 * (unless the client registered it again elsewhere); when this node dies, the survivors remove it
 * after its beat timeout, unless the client registered it again through another node first. Every
 * {@value #RECONCILE_MS} ms the registry is made to agree with the connections ({@link
 * #reconcile}), which repairs what a lost write or a partition left behind.
 */
final class HeldInstances {
    private static final Logger LOG = LoggerFactory.getLogger(HeldInstances.class);
    /** How often the registry is checked against the connections' instances. */
    static final long RECONCILE_MS = 5_000;

    private final NamingService naming;
    private final Map<Connection, Holder> holdersByConnection = new ConcurrentHashMap<>();
    /**
     * Which connections hold each instance: a connection's close deregisters only what no other
     * holds. The sets are immutable and replaced on change: almost all are of one connection.
     */
    private final Map<HeldKey, Set<Holder>> holders = new ConcurrentHashMap<>();
    /** What the last reconcile pass found held here in the registry but by no connection. */
    private Set<HeldKey> unheldLastPass = Set.of(); // the timer thread's own

    /** One connection's instances, by service as the client registered them. */
    private static final class Holder {
        final Map<ServiceKey, Map<InstanceAddress, Held>> instances = new HashMap<>(); // guarded by this
        boolean closed; // guarded by this
    }

    private record HeldKey(ServiceKey service, InstanceAddress address) {}

    /** An instance a connection holds here, and since when (System.nanoTime). */
    private record Held(Instance instance, long sinceNanos) {}

    HeldInstances(NamingService naming, ScheduledExecutorService timer) {
        this.naming = naming;
        timer.scheduleWithFixedDelay(this::reconcile, RECONCILE_MS, RECONCILE_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * The connection's instance of the service becomes {@code instance} (Nacos keeps one per service
     * and connection); the one it replaces is let go of.
     */
    CompletableFuture<Void> register(Connection connection, ServiceKey service, Instance instance) {
        Holder holder = holder(connection);
        Map<InstanceAddress, Instance> replaced = hold(holder, service, List.of(instance));
        return unholdIfRefused(holder, service, instance, naming.registerHeld(service, instance))
                .thenCompose(v -> releaseAll(service, replaced.values()));
    }

    /**
     * Lets go of the instance if this connection holds it, as Nacos 2.x releases only its own
     * client's instances: another client's instance, or one kept by beats, is left alone.
     */
    CompletableFuture<Void> deregister(Connection connection, ServiceKey service, InstanceAddress address) {
        return release(holder(connection), service, address)
                ? naming.releaseHeld(service, address)
                : CompletableFuture.completedFuture(null);
    }

    /**
     * The connection's instances of the service become exactly {@code instances}; the others are let
     * go of. A batch that would pass an ephemeral quota is refused whole, before anything is held
     * or written.
     */
    CompletableFuture<Void> registerAll(Connection connection, ServiceKey service, List<Instance> instances) {
        naming.checkEphemeralRoom(service, instances);
        Holder holder = holder(connection);
        Map<InstanceAddress, Instance> dropped = hold(holder, service, instances);
        CompletableFuture<?>[] registered = instances.stream()
                .map(i -> unholdIfRefused(holder, service, i, naming.registerHeld(service, i)))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(registered).thenCompose(v -> releaseAll(service, dropped.values()));
    }

    /**
     * {@code registered}, having forgotten the hold if a quota refused it: the client was told no,
     * so the reconcile pass must not register it behind its back.
     */
    private CompletableFuture<Void> unholdIfRefused(
            Holder holder, ServiceKey service, Instance instance, CompletableFuture<Void> registered) {
        return registered.whenComplete((v, e) -> {
            if (Failures.cause(e) instanceof LimitExceededException) {
                release(holder, service, instance.address()); // refused: nothing of it to let go of
            }
        });
    }

    /** Lets go of those of {@code instances} this connection holds. */
    CompletableFuture<Void> deregisterAll(Connection connection, ServiceKey service, List<Instance> instances) {
        Holder holder = holder(connection);
        List<Instance> released = instances.stream()
                .filter(i -> release(holder, service, i.address()))
                .toList();
        return releaseAll(service, released);
    }

    /** The connections holding each instance of {@code service} here. */
    Map<InstanceAddress, List<Connection>> holders(ServiceKey service) {
        Map<InstanceAddress, List<Connection>> out = new HashMap<>();
        holdersByConnection.forEach((connection, holder) -> {
            synchronized (holder) {
                Map<InstanceAddress, Held> mine = holder.instances.get(service);
                if (mine != null && !holder.closed) {
                    mine.keySet()
                            .forEach(a -> out.computeIfAbsent(a, k -> new ArrayList<>())
                                    .add(connection));
                }
            }
        });
        return out;
    }

    private Holder holder(Connection c) {
        return holdersByConnection.computeIfAbsent(c, k -> new Holder());
    }

    /**
     * Records {@code instances} as the connection's instances of {@code service}, returning those it
     * held before and holds no more (to be deregistered).
     */
    private Map<InstanceAddress, Instance> hold(Holder holder, ServiceKey service, List<Instance> instances) {
        Map<InstanceAddress, Instance> dropped = new HashMap<>();
        synchronized (holder) {
            if (holder.closed) {
                throw new InvalidRequestException("connection", "is closed");
            }
            Map<InstanceAddress, Held> now = new LinkedHashMap<>();
            for (Instance i : instances) {
                now.put(i.address(), new Held(i, System.nanoTime()));
                holders.merge(
                        new HeldKey(service, i.address()), Set.of(holder), (set, one) -> SmallSets.with(set, holder));
            }
            Map<InstanceAddress, Held> before = holder.instances.put(service, compact(now));
            if (before != null) {
                before.forEach((a, h) -> {
                    if (!now.containsKey(a) && unhold(holder, service, a)) {
                        dropped.put(a, h.instance);
                    }
                });
            }
        }
        return dropped;
    }

    /** Forgets that {@code holder} holds the instance; true if no other connection holds it now. */
    private boolean unhold(Holder holder, ServiceKey service, InstanceAddress address) {
        boolean[] last = {true};
        holders.computeIfPresent(new HeldKey(service, address), (k, set) -> {
            Set<Holder> rest = SmallSets.without(set, holder);
            last[0] = rest.isEmpty();
            return rest.isEmpty() ? null : rest;
        });
        return last[0];
    }

    /** A connection's instances of one service, immutable: almost always one, which Map.of keeps in a few bytes. */
    private static Map<InstanceAddress, Held> compact(Map<InstanceAddress, Held> held) {
        return held.size() == 1 ? Map.copyOf(held) : Collections.unmodifiableMap(held);
    }

    /**
     * Forgets that the connection holds the instance; true if it held it and no other connection
     * here holds it now (so it is to be let go of).
     */
    private boolean release(Holder holder, ServiceKey service, InstanceAddress address) {
        synchronized (holder) {
            Map<InstanceAddress, Held> held = holder.instances.get(service);
            if (held == null || !held.containsKey(address)) {
                return false;
            }
            boolean last = unhold(holder, service, address);
            Map<InstanceAddress, Held> rest = new LinkedHashMap<>(held);
            rest.remove(address);
            if (rest.isEmpty()) {
                holder.instances.remove(service);
            } else {
                holder.instances.put(service, compact(rest));
            }
            return last;
        }
    }

    /** Lets go of instances this node held: each goes unless its client registered it again elsewhere. */
    private CompletableFuture<Void> releaseAll(ServiceKey service, Collection<Instance> instances) {
        return CompletableFuture.allOf(instances.stream()
                .map(i -> naming.releaseHeld(service, i.address()))
                .toArray(CompletableFuture[]::new));
    }

    /**
     * The connection closed: its instances are let go of, unless the server sent its client
     * elsewhere: that client registers them again on another node, and a release from here before
     * that would make them vanish and come back. The reconcile pass lets go of any the client did
     * not take elsewhere.
     */
    void closed(Connection connection) {
        Holder holder = holdersByConnection.remove(connection);
        if (holder == null) {
            return;
        }
        Map<ServiceKey, List<Instance>> instances = new HashMap<>();
        synchronized (holder) {
            holder.closed = true;
            holder.instances.forEach((service, held) -> held.forEach((address, h) -> {
                if (unhold(holder, service, address)) { // another connection here may hold it too
                    instances.computeIfAbsent(service, k -> new ArrayList<>()).add(h.instance);
                }
            }));
            holder.instances.clear();
        }
        if (connection.sentElsewhere()) {
            return;
        }
        instances.forEach((service, gone) -> releaseAll(service, gone).whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn(
                        "removing the instances of closed {} in {} failed; the next reconcile retries",
                        connection,
                        service,
                        e);
            }
        }));
    }

    /**
     * Makes the registry agree with the connections. An instance a connection has held here for a
     * pass or more that this node's replica does not know (lost to a failed write, removed across
     * a partition) is registered again; one it knows as held here that no connection holds on two
     * passes in a row (a closed connection whose client did not come back, a release that failed,
     * an earlier run of this node) is let go of. An instance another node holds is left alone:
     * its client registered it there.
     */
    private void reconcile() {
        try {
            Set<HeldKey> unheld = new HashSet<>();
            naming.heldHere()
                    .forEach((service, addresses) -> addresses.forEach(address -> {
                        HeldKey key = new HeldKey(service, address);
                        if (!holders.containsKey(key)) {
                            unheld.add(key);
                        }
                    }));
            for (HeldKey key : unheld) {
                if (unheldLastPass.contains(key)) {
                    naming.releaseHeld(key.service(), key.address())
                            .whenComplete((v, e) -> logFailure("releasing", key, e));
                }
            }
            unheldLastPass = unheld;
            long settled = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(RECONCILE_MS);
            for (Holder holder : holdersByConnection.values()) {
                List<Map.Entry<ServiceKey, Instance>> missing = new ArrayList<>();
                synchronized (holder) {
                    // a younger registration may not have reached this node's replica yet
                    holder.instances.forEach((service, held) -> held.values().forEach(h -> {
                        Instance i = h.instance();
                        if (h.sinceNanos() - settled < 0
                                && naming.instance(service, i.cluster(), i.ip(), i.port())
                                        .isEmpty()) {
                            missing.add(Map.entry(service, i));
                        }
                    }));
                }
                for (Map.Entry<ServiceKey, Instance> e : missing) {
                    HeldKey key = new HeldKey(e.getKey(), e.getValue().address());
                    naming.registerHeld(e.getKey(), e.getValue())
                            .whenComplete((v, err) -> logFailure("registering again", key, err));
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("reconciling the connections' instances failed; the next pass retries", e);
        }
    }

    private static void logFailure(String what, HeldKey key, Throwable error) {
        if (error != null) {
            LOG.debug("{} {} in {} failed; the next pass retries", what, key.address(), key.service(), error);
        }
    }
}
