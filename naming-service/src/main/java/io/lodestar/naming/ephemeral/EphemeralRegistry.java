package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Ephemeral instances, in memory only, by service.
 *
 * <p>Every change goes through {@link #apply}: one {@link Mutation} applied by {@link
 * MutationApplier} while the service's map slot is locked, so mutations of one service are
 * serialized and mutations of different services run in parallel. After a visible change the
 * {@code onChange} callback gets the service key, on the mutating thread, after the lock is released;
 * it must not block.
 *
 * <p>Reads never lock: they see the state published after the last completed mutation.
 *
 * <p>For replication (Distro) a service's instances can be taken with {@link #copy} and merged
 * into another member's with {@link #merge}: every visible change of an instance, and every
 * removal, is stamped with a {@link VersionClock} version, and a merge keeps the later change at
 * each address ({@link ServiceCopy}). Times come from the injected {@link Clock}.
 */
public final class EphemeralRegistry {
    private final ConcurrentHashMap<ServiceKey, ServiceEntry> services = new ConcurrentHashMap<>();
    /** The instances of every service: changed with each mutation, so a quota check reads one number. */
    private final AtomicLong instanceCount = new AtomicLong();

    private final Clock clock;
    private final ExpiryRules rules;
    private final MutationApplier applier;
    private final Consumer<ServiceKey> onChange;

    public EphemeralRegistry(Clock clock, ExpiryRules rules, Consumer<ServiceKey> onChange) {
        this.clock = clock;
        this.rules = rules;
        this.applier = new MutationApplier(new VersionClock(clock));
        this.onChange = onChange;
    }

    public ExpiryRules rules() {
        return rules;
    }

    /**
     * Applies {@code mutation} to {@code service}'s instances. A mutation that does not {@link
     * Mutation#creates() create} is {@link Outcome#NOT_FOUND} for an unknown service. An expiry pass
     * also forgets the service once it has been empty for {@link ExpiryRules#emptyServiceTtlMs()}.
     */
    public Outcome apply(ServiceKey service, Mutation mutation) {
        long now = clock.millis();
        Outcome[] outcome = {Outcome.NOT_FOUND};
        int[] added = {0};
        services.compute(service, (key, entry) -> {
            ServiceEntry e = entry;
            if (e == null) {
                if (!mutation.creates()) {
                    return null;
                }
                e = new ServiceEntry(key, now);
            }
            int before = e.instances.size();
            outcome[0] = applier.apply(e, mutation, now);
            added[0] = e.instances.size() - before;
            if (entry == null && outcome[0] == Outcome.UNCHANGED) {
                outcome[0] = Outcome.CHANGED; // a new service is news even if it starts empty
            }
            if (mutation instanceof Mutation.Expire && e.droppable(now, rules.emptyServiceTtlMs())) {
                return null;
            }
            return e;
        });
        instanceCount.addAndGet(added[0]);
        if (outcome[0] == Outcome.CHANGED) {
            onChange.accept(service);
        }
        return outcome[0];
    }

    /** Forgets {@code service} if it has no instances. */
    public RemoveOutcome removeIfEmpty(ServiceKey service) {
        RemoveOutcome[] outcome = {RemoveOutcome.ABSENT};
        services.computeIfPresent(service, (key, e) -> {
            if (!e.instances.isEmpty()) {
                outcome[0] = RemoveOutcome.NOT_EMPTY;
                return e;
            }
            outcome[0] = RemoveOutcome.REMOVED;
            return null;
        });
        if (outcome[0] == RemoveOutcome.REMOVED) {
            onChange.accept(service);
        }
        return outcome[0];
    }

    /** The result of {@link #removeIfEmpty}. */
    public enum RemoveOutcome {
        ABSENT,
        REMOVED,
        NOT_EMPTY
    }

    /** The service's instances in registration order; empty for an unknown service. */
    public List<Instance> instances(ServiceKey service) {
        ServiceEntry e = services.get(service);
        return e == null ? List.of() : e.published().snapshot().instances();
    }

    /**
     * A token for the service's current visible state: a different object after every change that
     * readers can see, null for an unknown service (see {@link io.lodestar.naming.query.ListVersion}).
     */
    public Object version(ServiceKey service) {
        ServiceEntry e = services.get(service);
        return e == null ? null : e.published();
    }

    /** The instance at {@code address}, read under the service's lock (briefly: one map lookup). */
    public Optional<Instance> instance(ServiceKey service, InstanceAddress address) {
        Instance[] found = {null};
        services.computeIfPresent(service, (key, e) -> {
            found[0] = e.instanceLocked(address);
            return e;
        });
        return Optional.ofNullable(found[0]);
    }

    /** The member that holds the instance at {@code address} for a connection; empty when none does or it is unknown. */
    public Optional<String> holder(ServiceKey service, InstanceAddress address) {
        String[] found = {null};
        services.computeIfPresent(service, (key, e) -> {
            found[0] = e.holderLocked(address);
            return e;
        });
        return Optional.ofNullable(found[0]);
    }

    /** The member holding each of the service's instances held for a connection (the rest are kept by beats). */
    public Map<InstanceAddress, String> holders(ServiceKey service) {
        @SuppressWarnings("unchecked")
        Map<InstanceAddress, String>[] found = new Map[] {Map.of()};
        services.computeIfPresent(service, (key, e) -> {
            found[0] = e.holdersLocked();
            return e;
        });
        return found[0];
    }

    /** The instances {@code member} holds, by service: a pass over every service, each read under its lock. */
    public Map<ServiceKey, Set<InstanceAddress>> heldBy(String member) {
        Map<ServiceKey, Set<InstanceAddress>> out = new HashMap<>();
        for (ServiceKey service : services.keySet()) {
            services.computeIfPresent(service, (key, e) -> {
                List<InstanceAddress> held = e.heldByLocked(member);
                if (!held.isEmpty()) {
                    out.put(key, Set.copyOf(held));
                }
                return e;
            });
        }
        return out;
    }

    /** True while the registry knows the service, with or without instances. */
    public boolean contains(ServiceKey service) {
        return services.containsKey(service);
    }

    public boolean hasInstances(ServiceKey service) {
        return !instances(service).isEmpty();
    }

    /** The services known at the moment of the call. */
    public Set<ServiceKey> services() {
        return Set.copyOf(services.keySet());
    }

    /** The instances of every service, as the last completed mutations left them. */
    public int instanceCount() {
        return (int) Math.min(Integer.MAX_VALUE, instanceCount.get());
    }

    /** The service's instances with their checksum; empty for an unknown service. */
    public Optional<ServiceSnapshot> snapshot(ServiceKey service) {
        ServiceEntry e = services.get(service);
        return e == null ? Optional.empty() : Optional.of(e.published().snapshot());
    }

    /** The service as replication ships it (with versions and recent removals); empty for an unknown service. */
    public Optional<ServiceCopy> copy(ServiceKey service) {
        ServiceCopy[] copy = {null};
        services.computeIfPresent(service, (key, e) -> {
            copy[0] = e.copyLocked();
            return e;
        });
        return Optional.ofNullable(copy[0]);
    }

    /** Merges a peer's copy of the service into this registry's ({@link Mutation.Merge}). */
    public Outcome merge(ServiceCopy copy) {
        return apply(copy.service(), new Mutation.Merge(copy));
    }

    /** Forgets {@code service} whole (its owner no longer has it). */
    public void drop(ServiceKey service) {
        boolean[] dropped = {false};
        services.computeIfPresent(service, (key, e) -> {
            instanceCount.addAndGet(-e.instances.size());
            dropped[0] = true;
            return null;
        });
        if (dropped[0]) {
            onChange.accept(service);
        }
    }
}
