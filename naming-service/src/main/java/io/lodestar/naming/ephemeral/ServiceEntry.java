package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
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
    /**
     * In registration order. Replaced by a new map when it empties, so that the many services kept
     * a while without instances do not each keep the table their instances needed.
     */
    LinkedHashMap<InstanceAddress, Slot> instances = new LinkedHashMap<>();
    /**
     * Addresses removed lately, kept {@link MutationApplier#REMOVAL_MEMORY_MS} so that merging an
     * older copy cannot bring them back. Null while there are none, as for most services most of
     * the time.
     */
    Removals removed;
    /** When {@link #instances} last became empty; meaningful only while it is. */
    long emptySince;

    private volatile Published published;

    ServiceEntry(ServiceKey service, long now) {
        this.service = service;
        publish(now);
    }

    /**
     * One instance and its last beat (or registration), registry clock milliseconds: kept together
     * because a registry holds hundreds of thousands of them (a separate map of boxed times cost
     * about 50 bytes an instance).
     */
    static final class Slot {
        Instance instance;
        long lastBeat;
        /** The {@link VersionClock} version of the instance's last change, here or on a peer. */
        long version;
        /** The member holding the instance for its client's connection (its lease), or null if the client beats it. */
        String holder;

        Slot(Instance instance, long lastBeat, long version, String holder) {
            this.instance = instance;
            this.lastBeat = lastBeat;
            this.version = version;
            this.holder = holder;
        }
    }

    /** Makes the current state visible to readers; called after every visible change. */
    void publish(long now) {
        List<Instance> list;
        if (instances.isEmpty()) {
            emptySince = now;
            instances = new LinkedHashMap<>();
            list = List.of();
        } else {
            list = instances.values().stream().map(slot -> slot.instance).toList();
        }
        published = new Published(new ServiceSnapshot(service, list));
    }

    /** The instance at {@code address}; only while the registry holds this entry's lock. */
    Instance instanceLocked(InstanceAddress address) {
        Slot slot = instances.get(address);
        return slot == null ? null : slot.instance;
    }

    /** The member holding the instance at {@code address} for a connection, or null; only under this entry's lock. */
    String holderLocked(InstanceAddress address) {
        Slot slot = instances.get(address);
        return slot == null ? null : slot.holder;
    }

    /** The holder of each instance a member holds for a connection; only while the registry holds this entry's lock. */
    Map<InstanceAddress, String> holdersLocked() {
        Map<InstanceAddress, String> out = new java.util.HashMap<>();
        instances.forEach((address, slot) -> {
            if (slot.holder != null) {
                out.put(address, slot.holder);
            }
        });
        return out;
    }

    /** The addresses of the instances {@code member} holds; only while the registry holds this entry's lock. */
    List<InstanceAddress> heldByLocked(String member) {
        List<InstanceAddress> out = new ArrayList<>();
        instances.forEach((address, slot) -> {
            if (member.equals(slot.holder)) {
                out.add(address);
            }
        });
        return out;
    }

    /** This entry as replication ships it; only while the registry holds this entry's lock. */
    ServiceCopy copyLocked() {
        List<ServiceCopy.Entry> entries = new ArrayList<>(instances.size() + (removed == null ? 0 : removed.size()));
        instances
                .values()
                .forEach(slot -> entries.add(ServiceCopy.Entry.live(slot.instance, slot.version, slot.holder)));
        if (removed != null) {
            removed.forEach(r -> entries.add(ServiceCopy.Entry.removed(r.address(), r.version())));
        }
        return new ServiceCopy(service, entries);
    }

    Published published() {
        return published;
    }

    boolean droppable(long now, long emptyServiceTtlMs) {
        return instances.isEmpty() && now - emptySince >= emptyServiceTtlMs;
    }

    /** An immutable view of the entry for lock-free readers. */
    record Published(ServiceSnapshot snapshot) {}
}
