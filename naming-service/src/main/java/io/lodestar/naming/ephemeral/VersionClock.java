package io.lodestar.naming.ephemeral;

import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hybrid logical clock: the versions that order the changes to an ephemeral instance made on
 * different members ({@link ServiceCopy.Entry#outranks}).
 *
 * <p>A version is the wall-clock millisecond shifted left by {@value #LOGICAL_BITS} bits plus a
 * counter. {@link #next} is greater than every version this clock gave or {@link #observe observed}
 * before, so a change made after a copy was seen always outranks what that copy held, whatever the
 * members' clocks say; between changes that did not see each other, the later by wall clock wins.
 */
final class VersionClock {
    static final int LOGICAL_BITS = 16;

    private final Clock clock;
    private final AtomicLong last = new AtomicLong();

    VersionClock(Clock clock) {
        this.clock = clock;
    }

    /** A version above every one given or observed so far. */
    long next() {
        long physical = clock.millis() << LOGICAL_BITS;
        return last.accumulateAndGet(physical, (prev, now) -> Math.max(prev + 1, now));
    }

    /** Takes note of a version made elsewhere, so the next one here is above it. */
    void observe(long version) {
        last.accumulateAndGet(version, Math::max);
    }
}
