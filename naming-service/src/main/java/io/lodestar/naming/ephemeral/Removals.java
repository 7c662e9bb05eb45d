package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.InstanceAddress;
import java.util.HashMap;
import java.util.function.Consumer;

/**
 * The addresses removed from one service lately (its tombstones). Almost every service that has
 * any has one: a client's instance that went with its connection. That one is kept inline; a map
 * is made only for a second, so a registry churning through services keeps a small record per
 * tombstone rather than a map's several times larger footprint.
 */
final class Removals {
    /** A removed address: the version of the removal, and when this registry learnt of it (registry clock). */
    record Removal(InstanceAddress address, long version, long at) {}

    private Removal one; // while there is exactly one
    private HashMap<InstanceAddress, Removal> many; // once there were two

    Removal get(InstanceAddress address) {
        if (many != null) {
            return many.get(address);
        }
        return one != null && one.address().equals(address) ? one : null;
    }

    void put(Removal removal) {
        if (many != null) {
            many.put(removal.address(), removal);
        } else if (one == null || one.address().equals(removal.address())) {
            one = removal;
        } else {
            many = new HashMap<>(4);
            many.put(one.address(), one);
            many.put(removal.address(), removal);
            one = null;
        }
    }

    /** Forgets {@code address}'s removal; true if there was one. */
    boolean remove(InstanceAddress address) {
        if (many != null) {
            return many.remove(address) != null;
        }
        if (one != null && one.address().equals(address)) {
            one = null;
            return true;
        }
        return false;
    }

    /** Forgets the removals learnt before {@code cutoff}; true if none is left. */
    boolean forgetBefore(long cutoff) {
        if (many != null) {
            many.values().removeIf(r -> r.at() < cutoff);
        } else if (one != null && one.at() < cutoff) {
            one = null;
        }
        return isEmpty();
    }

    boolean isEmpty() {
        return many != null ? many.isEmpty() : one == null;
    }

    int size() {
        return many != null ? many.size() : one == null ? 0 : 1;
    }

    void forEach(Consumer<Removal> action) {
        if (many != null) {
            many.values().forEach(action);
        } else if (one != null) {
            action.accept(one);
        }
    }
}
