package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.Checksums;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The ephemeral state of one service. The mutable fields are touched only by {@link
 * MutationApplier} while {@link EphemeralRegistry} holds the service's lock; readers take the
 * immutable {@link #published()} view without locking.
 */
final class ServiceEntry {
    final ServiceKey service;
    /** In registration order. */
    final LinkedHashMap<InstanceAddress, Slot> instances = new LinkedHashMap<>();
    /** The {@link VersionClock} version of the last visible change, or of the installed copy. */
    long version;
    /** When {@link #instances} last became empty; meaningful only while it is. */
    long emptySince;
    /** The last non-empty list, answered while {@code now < protectedUntil} and there are no instances. */
    List<Instance> protectedInstances = List.of();
    long protectedUntil;

    private volatile Published published;

    ServiceEntry(ServiceKey service, long now) {
        this.service = service;
        this.emptySince = now;
        publish();
    }

    /**
     * One instance and its last beat (or registration), registry clock milliseconds: kept together
     * because a registry holds hundreds of thousands of them (a separate map of boxed times cost
     * about 50 bytes an instance).
     */
    static final class Slot {
        Instance instance;
        long lastBeat;

        Slot(Instance instance, long lastBeat) {
            this.instance = instance;
            this.lastBeat = lastBeat;
        }
    }

    /** Makes the current state visible to readers; called after every visible change. */
    void publish() {
        List<Instance> list = instances.values().stream().map(slot -> slot.instance).toList();
        published = new Published(new ServiceSnapshot(service, list, Checksums.of(list), version),
                protectedInstances, protectedUntil);
    }

    /** The instance at {@code address}; only while the registry holds this entry's lock. */
    Instance instanceLocked(InstanceAddress address) {
        Slot slot = instances.get(address);
        return slot == null ? null : slot.instance;
    }

    Published published() {
        return published;
    }

    void clearProtection() {
        protectedInstances = List.of();
        protectedUntil = 0;
    }

    boolean droppable(long now, long emptyServiceTtlMs) {
        return instances.isEmpty() && protectedInstances.isEmpty() && now - emptySince >= emptyServiceTtlMs;
    }

    /** An immutable view of the entry for lock-free readers. */
    record Published(ServiceSnapshot snapshot, List<Instance> protectedInstances, long protectedUntil) {}
}
