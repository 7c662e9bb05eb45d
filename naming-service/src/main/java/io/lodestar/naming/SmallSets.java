package io.lodestar.naming;

import java.util.HashSet;
import java.util.Set;

/**
 * Immutable sets replaced on every change, for map values that are almost always of one element:
 * {@code Set.of(x)} holds one in about 20 bytes where a concurrent set takes 200, and a reader
 * never sees a set being changed.
 */
public final class SmallSets {
    private SmallSets() {}

    /** {@code set} with {@code element}: the same set if it has it already. */
    public static <T> Set<T> with(Set<T> set, T element) {
        if (set.contains(element)) {
            return set;
        }
        Set<T> more = new HashSet<>(set);
        more.add(element);
        return Set.copyOf(more);
    }

    /** {@code set} without {@code element}: the same set if it lacks it, possibly empty. */
    public static <T> Set<T> without(Set<T> set, T element) {
        if (!set.contains(element)) {
            return set;
        }
        Set<T> rest = new HashSet<>(set);
        rest.remove(element);
        return Set.copyOf(rest);
    }
}
