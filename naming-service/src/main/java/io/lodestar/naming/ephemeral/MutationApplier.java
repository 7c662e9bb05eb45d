package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.query.Checksums;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Applies a {@link Mutation} to a {@link ServiceEntry}: the one place the ephemeral state changes.
 * Called only by {@link EphemeralRegistry} with the service's lock held; never blocks.
 *
 * <p><b>Expiry</b> (Nacos's rule): an instance silent for more than its beat timeout turns
 * unhealthy, one silent for more than its delete timeout is removed (both from its metadata,
 * {@link HeartbeatSettings}); a beat makes it healthy again.
 *
 * <p><b>Empty-push protection</b>: when one expiry pass removes all remaining instances of a
 * service (its list goes from non-empty to empty within one check interval, through expiry alone),
 * the list as it was before that pass is kept and answered instead of the empty one, for at most
 * {@link ExpiryRules#protectionWindowMs}. Every instance falling silent at once more likely means
 * their beats could not reach us (a partition, a long pause of this node, a clock jump) than that
 * they all died, and an empty answer would make every client drop every provider. The protection
 * ends early when an instance registers or the service is replaced, and a deregistration removes
 * its instance from the kept list (an explicit goodbye is not an outage). An emptying by
 * deregistration is never protected. A service that declined one instance at a time is protected
 * too once its last instance expires: locally that is indistinguishable from a one-instance
 * service cut off, and showing one dead instance for the window costs less than hiding a live one.
 */
final class MutationApplier {
    private final ExpiryRules rules;
    private final VersionClock versions;

    MutationApplier(ExpiryRules rules, VersionClock versions) {
        this.rules = rules;
        this.versions = versions;
    }

    Outcome apply(ServiceEntry e, Mutation m, long now) {
        Outcome out;
        if (m instanceof Mutation.Register r) {
            out = register(e, r.instance(), now);
        } else if (m instanceof Mutation.Deregister d) {
            out = deregister(e, d.address(), now);
        } else if (m instanceof Mutation.Beat b) {
            out = beat(e, b.address(), now);
        } else if (m instanceof Mutation.Modify mod) {
            out = modify(e, mod);
        } else if (m instanceof Mutation.Expire) {
            out = expire(e, now);
        } else if (m instanceof Mutation.Install in) {
            return install(e, in.snapshot(), now); // takes the copy's version, not a new one
        } else if (m instanceof Mutation.Grace) {
            e.instances.values().forEach(slot -> slot.lastBeat = now);
            out = Outcome.UNCHANGED;
        } else {
            throw new IllegalArgumentException("unknown mutation " + m);
        }
        if (out == Outcome.CHANGED) {
            e.version = versions.next();
            e.publish();
        }
        return out;
    }

    private Outcome register(ServiceEntry e, Instance instance, long now) {
        InstanceAddress address = instance.address();
        ServiceEntry.Slot slot = e.instances.get(address);
        Instance previous = slot == null ? null : slot.instance;
        if (slot == null) {
            e.instances.put(address, new ServiceEntry.Slot(instance, now));
        } else {
            slot.instance = instance;
            slot.lastBeat = now;
        }
        boolean wasProtected = !e.protectedInstances.isEmpty();
        e.clearProtection();
        return instance.equals(previous) && !wasProtected ? Outcome.UNCHANGED : Outcome.CHANGED;
    }

    private Outcome deregister(ServiceEntry e, InstanceAddress address, long now) {
        ServiceEntry.Slot removed = e.instances.remove(address);
        boolean protectedChanged = false;
        if (!e.protectedInstances.isEmpty()) {
            List<Instance> kept = e.protectedInstances.stream().filter(i -> !i.address().equals(address)).toList();
            protectedChanged = kept.size() != e.protectedInstances.size();
            e.protectedInstances = kept;
            if (kept.isEmpty()) {
                e.clearProtection();
            }
        }
        if (removed == null) {
            return protectedChanged ? Outcome.CHANGED : Outcome.NOT_FOUND;
        }
        if (e.instances.isEmpty()) {
            e.emptySince = now;
        }
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
        return Outcome.CHANGED;
    }

    private Outcome expire(ServiceEntry e, long now) {
        boolean changed = false;
        List<Instance> before = e.instances.values().stream().map(slot -> slot.instance).toList();
        boolean removedAny = false;
        Iterator<ServiceEntry.Slot> it = e.instances.values().iterator();
        while (it.hasNext()) {
            ServiceEntry.Slot slot = it.next();
            Instance instance = slot.instance;
            HeartbeatSettings hb = instance.heartbeat();
            long silentMs = now - slot.lastBeat;
            if (silentMs > hb.deleteTimeoutMs()) {
                it.remove();
                removedAny = true;
                changed = true;
            } else if (silentMs > hb.timeoutMs() && instance.healthy()) {
                slot.instance = instance.withHealthy(false);
                changed = true;
            }
        }
        if (removedAny && e.instances.isEmpty()) {
            e.emptySince = now;
            if (rules.emptyPushProtection() && rules.protectionWindowMs() > 0) {
                e.protectedInstances = before;
                e.protectedUntil = now + rules.protectionWindowMs();
            }
        }
        if (!e.protectedInstances.isEmpty() && now >= e.protectedUntil) {
            e.clearProtection();
            changed = true;
        }
        return changed ? Outcome.CHANGED : Outcome.UNCHANGED;
    }

    private Outcome install(ServiceEntry e, ServiceSnapshot snapshot, long now) {
        for (Instance i : snapshot.instances()) {
            // checked before anything changes: a bad snapshot must leave the entry as it was
            if (!i.ephemeral()) {
                throw new IllegalArgumentException("a snapshot holds ephemeral instances only: " + i);
            }
        }
        if (!snapshot.newerThan(e.published().snapshot())) {
            return Outcome.UNCHANGED; // an older copy, or this one again
        }
        versions.observe(snapshot.version());
        String before = e.published().snapshot().checksum();
        Map<InstanceAddress, ServiceEntry.Slot> old = new HashMap<>(e.instances);
        e.instances.clear();
        for (Instance i : snapshot.instances()) {
            ServiceEntry.Slot known = old.get(i.address());
            // a replica does not age instances it does not own; keep what it knew, else start now
            e.instances.put(i.address(), new ServiceEntry.Slot(i, known == null ? now : known.lastBeat));
        }
        boolean wasProtected = !e.protectedInstances.isEmpty();
        e.clearProtection();
        if (e.instances.isEmpty()) {
            e.emptySince = now;
        }
        // the version is published even when the instances are the same, so the copies' stamps agree
        e.version = snapshot.version();
        e.publish();
        return wasProtected || !before.equals(Checksums.of(snapshot.instances()))
                ? Outcome.CHANGED : Outcome.UNCHANGED;
    }
}
