package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.Checksums;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ephemeral state of one service. The mutable fields are touched only by {@link
 * MutationApplier} while {@link EphemeralRegistry} holds the service's lock; readers take the
 * immutable {@link #published()} view without locking.
 */
final class ServiceEntry {
    final ServiceKey service;
    /** In registration order. */
    final LinkedHashMap<InstanceAddress, Instance> instances = new LinkedHashMap<>();
    /** Last beat (or registration) of each instance, registry clock milliseconds. */
    final Map<InstanceAddress, Long> lastBeat = new HashMap<>();
    long lastModified;
    /** When {@link #instances} last became empty; meaningful only while it is. */
    long emptySince;
    /** The last non-empty list, answered while {@code now < protectedUntil} and there are no instances. */
    List<Instance> protectedInstances = List.of();
    long protectedUntil;

    private volatile Published published;

    ServiceEntry(ServiceKey service, long now) {
        this.service = service;
        this.lastModified = now;
        this.emptySince = now;
        publish();
    }

    /** Makes the current state visible to readers; called after every visible change. */
    void publish() {
        List<Instance> list = List.copyOf(instances.values());
        published = new Published(new ServiceSnapshot(service, list, Checksums.of(list), lastModified),
                Map.copyOf(instances), protectedInstances, protectedUntil);
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
    record Published(ServiceSnapshot snapshot, Map<InstanceAddress, Instance> byAddress,
                     List<Instance> protectedInstances, long protectedUntil) {}
}
