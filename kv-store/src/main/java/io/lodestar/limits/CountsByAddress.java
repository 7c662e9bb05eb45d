package io.lodestar.limits;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many of something each client address holds, up to a cap: the count behind the
 * per-address limits. An address holding none takes no space. Any thread.
 *
 * @param <A> the address type
 */
public final class CountsByAddress<A> {
    private final int cap;
    private final ConcurrentHashMap<A, Integer> counts = new ConcurrentHashMap<>();

    public CountsByAddress(int cap) {
        this.cap = cap;
    }

    /** Counts one more for {@code address}, unless it holds the cap already: then false, and nothing counted. */
    public boolean tryAcquire(A address) {
        boolean[] acquired = {false};
        counts.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            acquired[0] = now < cap;
            return acquired[0] ? Integer.valueOf(now + 1) : n;
        });
        return acquired[0];
    }

    /** Counts one fewer for {@code address}, which must have been acquired. */
    public void release(A address) {
        counts.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }
}
