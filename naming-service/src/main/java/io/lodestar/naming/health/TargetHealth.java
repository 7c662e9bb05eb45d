package io.lodestar.naming.health;

/**
 * The checker's memory of one target: its consecutive results, when it is next due, and the flip
 * last asked of the sink, deciding from each result whether the target's status must flip.
 *
 * <p>Not thread-safe: confined to the checker's scheduler thread.
 */
final class TargetHealth {
    /** The target as last listed (its stored health included); replaced every tick. */
    ProbeTarget target;

    long nextDueNanos;
    boolean inFlight;
    private int successes;
    private int failures;
    /** The status last asked of the sink and not yet seen stored, or null. */
    private Boolean requested;

    private long requestedAtNanos;

    TargetHealth(ProbeTarget target, long firstDueNanos) {
        this.target = target;
        this.nextDueNanos = firstDueNanos;
    }

    /**
     * Whether {@code listed} is probed differently from the target this memory was built for (other
     * address, port or settings): then its results say nothing about the new one and it starts over.
     */
    boolean probedDifferently(ProbeTarget listed) {
        return !listed.ip().equals(target.ip())
                || listed.probePort() != target.probePort()
                || !listed.settings().equals(target.settings());
    }

    /**
     * Counts one result against the target's stored health ({@code target.healthy()}) and returns
     * the status the target must flip to now, or null for none.
     *
     * <p>A flip is due when the last {@code failureThreshold} results all failed while the stored
     * health is healthy, or the last {@code successThreshold} all succeeded while it is unhealthy.
     * Once asked, the same flip is not asked again until {@code retryAfterNanos} have passed since
     * the ask ended ({@link #asked}) without the stored health changing (the write is presumably
     * still on its way).
     */
    Boolean record(boolean up, long nowNanos, long retryAfterNanos) {
        if (up) {
            successes++;
            failures = 0;
        } else {
            failures++;
            successes = 0;
        }
        boolean stored = target.healthy();
        if (requested != null && requested == stored) {
            requested = null; // the flip has landed
        }
        ProbeSettings settings = target.settings();
        boolean verdict = up ? successes >= settings.successThreshold() : failures >= settings.failureThreshold();
        if (!verdict || stored == up) {
            return null;
        }
        if (requested != null && requested == up && nowNanos - requestedAtNanos < retryAfterNanos) {
            return null;
        }
        requested = up;
        requestedAtNanos = nowNanos;
        return up;
    }

    /**
     * The flip {@link #record} returned has been asked for, ending now: the wait before asking
     * again counts from here, not from the result, so logging and the ask itself do not shorten it.
     */
    void asked(long nowNanos) {
        requestedAtNanos = nowNanos;
    }

    /** Results in a row of the current kind (for logs). */
    int streak() {
        return Math.max(successes, failures);
    }
}
