package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Applies a {@link Mutation} to a {@link ServiceEntry}: the one place the ephemeral state changes.
 * Called only by {@link EphemeralRegistry} with the service's lock held; never blocks.
 *
 * <p><b>Expiry</b> (Nacos's rule): an instance silent for more than its beat timeout turns
 * unhealthy, one silent for more than its delete timeout is removed (both from its metadata,
 * {@link HeartbeatSettings}); a beat makes it healthy again. This holds whatever else the service
 * holds: the last instance of a service expires like any other, and its service then answers an
 * empty list (keeping the last list through an outage is the client's choice, Nacos's
 * {@code namingPushEmptyProtection}).
 *
 * <p>An instance <b>held</b> for a gRPC client's connection lives while its holder is a live
 * member, and goes after its beat timeout once the holder is not (see {@link Mutation.Expire}).
 */
final class MutationApplier {
    /**
     * How long a removed address is remembered (its tombstone): longer than any older copy of the
     * service can still be on its way (a sync batch, a verification round, a member's restart).
     */
    static final long REMOVAL_MEMORY_MS = 60_000;

    private final VersionClock versions;

    MutationApplier(VersionClock versions) {
        this.versions = versions;
    }

    Outcome apply(ServiceEntry e, Mutation m, long now) {
        forgetOldRemovals(e, now);
        Outcome out;
        if (m instanceof Mutation.Register r) {
            out = register(e, r.instance(), r.holder(), now);
        } else if (m instanceof Mutation.Deregister d) {
            out = deregister(e, d.address(), d.ifHeldBy(), now);
        } else if (m instanceof Mutation.Beat b) {
            out = beat(e, b.address(), now);
        } else if (m instanceof Mutation.Modify mod) {
            out = modify(e, mod);
        } else if (m instanceof Mutation.Expire x) {
            out = expire(e, x.liveMembers(), now);
        } else if (m instanceof Mutation.Merge merge) {
            out = merge(e, merge.copy(), now);
        } else if (m instanceof Mutation.Grace) {
            e.instances.values().forEach(slot -> slot.lastBeat = now);
            out = Outcome.UNCHANGED;
        } else {
            throw new IllegalArgumentException("unknown mutation " + m);
        }
        if (out == Outcome.CHANGED) {
            e.publish(now);
        }
        return out;
    }

    /**
     * A new holder is a change even when the instance is the same (a client that registered again
     * through another member): it gets a version, so that replicas, and so the heir, learn it.
     */
    private Outcome register(ServiceEntry e, Instance instance, String holder, long now) {
        InstanceAddress address = instance.address();
        ServiceEntry.Slot slot = e.instances.get(address);
        String shared = holder == null ? null : holder.intern(); // a handful of members, many instances
        if (slot == null) {
            e.instances.put(address, new ServiceEntry.Slot(instance, now, versions.next(), shared));
            forgetRemoval(e, address);
            return Outcome.CHANGED;
        }
        slot.lastBeat = now;
        if (instance.equals(slot.instance) && Objects.equals(shared, slot.holder)) {
            return Outcome.UNCHANGED;
        }
        slot.instance = instance;
        slot.holder = shared;
        slot.version = versions.next();
        return Outcome.CHANGED;
    }

    private Outcome deregister(ServiceEntry e, InstanceAddress address, String ifHeldBy, long now) {
        ServiceEntry.Slot slot = e.instances.get(address);
        if (slot == null) {
            return Outcome.NOT_FOUND;
        }
        String holder = slot.holder == null ? Mutation.Deregister.UNHELD : slot.holder;
        if (ifHeldBy != null && !ifHeldBy.equals(holder)) {
            return Outcome.UNCHANGED;
        }
        e.instances.remove(address);
        remember(e, address, versions.next(), now);
        return Outcome.CHANGED;
    }

    private Outcome beat(ServiceEntry e, InstanceAddress address, long now) {
        ServiceEntry.Slot slot = e.instances.get(address);
        if (slot == null) {
            return Outcome.NOT_FOUND;
        }
        slot.lastBeat = now;
        if (slot.instance.healthy()) {
            return Outcome.UNCHANGED;
        }
        slot.instance = slot.instance.withHealthy(true);
        slot.version = versions.next();
        return Outcome.CHANGED;
    }

    private Outcome modify(ServiceEntry e, Mutation.Modify m) {
        ServiceEntry.Slot slot = e.instances.get(m.address());
        if (slot == null) {
            return Outcome.NOT_FOUND;
        }
        Instance instance = slot.instance;
        Instance changed = m.change().apply(instance);
        if (!changed.address().equals(m.address()) || !changed.ephemeral()) {
            throw new IllegalArgumentException("an edit may not move an instance or change its kind");
        }
        if (changed.equals(instance)) {
            return Outcome.UNCHANGED;
        }
        slot.instance = changed;
        slot.version = versions.next();
        return Outcome.CHANGED;
    }

    private Outcome expire(ServiceEntry e, Predicate<String> liveMembers, long now) {
        if (e.instances.isEmpty()) {
            return Outcome.UNCHANGED; // and no iterator: an empty service's map stays without views
        }
        boolean changed = false;
        Iterator<Map.Entry<InstanceAddress, ServiceEntry.Slot>> it =
                e.instances.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<InstanceAddress, ServiceEntry.Slot> entry = it.next();
            ServiceEntry.Slot slot = entry.getValue();
            Instance instance = slot.instance;
            HeartbeatSettings hb = instance.heartbeat();
            if (slot.holder != null && liveMembers.test(slot.holder)) {
                slot.lastBeat = now; // the holder's lease
                continue;
            }
            long silentMs = now - slot.lastBeat;
            // with its holder gone, a held instance waits its beat timeout only: time for its client's redo
            long removeAfter = slot.holder == null ? hb.deleteTimeoutMs() : hb.timeoutMs();
            if (silentMs > removeAfter) {
                it.remove();
                remember(e, entry.getKey(), versions.next(), now);
                changed = true;
            } else if (silentMs > hb.timeoutMs() && instance.healthy()) {
                slot.instance = instance.withHealthy(false);
                slot.version = versions.next();
                changed = true;
            }
        }
        return changed ? Outcome.CHANGED : Outcome.UNCHANGED;
    }

    /**
     * Merges a peer's copy address by address: each of its entries that {@link
     * ServiceCopy.Entry#outranks outranks} what this entry holds at that address (an instance or a
     * removal) replaces it. Instances this copy lacks and the peer's copy does not mention stay.
     */
    private Outcome merge(ServiceEntry e, ServiceCopy copy, long now) {
        for (ServiceCopy.Entry in : copy.entries()) {
            // checked before anything changes: a bad copy must leave the entry as it was
            if (in.live()
                    && (!in.instance().ephemeral() || !in.instance().address().equals(in.address()))) {
                throw new IllegalArgumentException("a copy holds ephemeral instances at their own address only: " + in);
            }
        }
        boolean changed = false;
        for (ServiceCopy.Entry in : copy.entries()) {
            versions.observe(in.version());
            ServiceCopy.Entry held = heldAt(e, in.address());
            if (held != null && !in.outranks(held)) {
                continue;
            }
            ServiceEntry.Slot slot = e.instances.get(in.address());
            if (in.live()) {
                forgetRemoval(e, in.address());
                if (slot == null) {
                    // a replica does not age instances it does not own: their beat time starts now
                    e.instances.put(
                            in.address(),
                            new ServiceEntry.Slot(
                                    in.instance(),
                                    now,
                                    in.version(),
                                    in.holder() == null ? null : in.holder().intern()));
                    changed = true;
                } else {
                    changed |= !slot.instance.equals(in.instance());
                    slot.instance = in.instance();
                    slot.version = in.version();
                    slot.holder = in.holder() == null ? null : in.holder().intern();
                }
            } else {
                if (slot != null) {
                    e.instances.remove(in.address());
                    changed = true;
                }
                remember(e, in.address(), in.version(), now);
            }
        }
        return changed ? Outcome.CHANGED : Outcome.UNCHANGED;
    }

    private static ServiceCopy.Entry heldAt(ServiceEntry e, InstanceAddress address) {
        ServiceEntry.Slot slot = e.instances.get(address);
        if (slot != null) {
            return ServiceCopy.Entry.live(slot.instance, slot.version, slot.holder);
        }
        Removals.Removal r = e.removed == null ? null : e.removed.get(address);
        return r == null ? null : ServiceCopy.Entry.removed(address, r.version());
    }

    private static void remember(ServiceEntry e, InstanceAddress address, long version, long now) {
        if (e.removed == null) {
            e.removed = new Removals();
        }
        e.removed.put(new Removals.Removal(address, version, now));
    }

    private static void forgetRemoval(ServiceEntry e, InstanceAddress address) {
        if (e.removed != null && e.removed.remove(address) && e.removed.isEmpty()) {
            e.removed = null;
        }
    }

    private static void forgetOldRemovals(ServiceEntry e, long now) {
        if (e.removed != null && e.removed.forgetBefore(now - REMOVAL_MEMORY_MS)) {
            e.removed = null;
        }
    }
}
