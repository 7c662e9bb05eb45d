package io.lodestar.kv.cluster;

/**
 * When this node last knew a leader (itself included), for operators' alerts and the reasons a
 * node gives for not serving: wall-clock milliseconds, as a follower last heard of it within
 * about an election timeout and a leader while it still leads.
 *
 * @param lastContactMillis   when a leader was last known; 0 if never since this node started
 * @param noLeaderSinceMillis since when no leader has been known; 0 while one is
 */
public record LeaderContact(long lastContactMillis, long noLeaderSinceMillis) {
    /** Milliseconds since a leader was last known at {@code nowMillis}; -1 if never. */
    public long ageMillis(long nowMillis) {
        return lastContactMillis == 0 ? -1 : Math.max(0, nowMillis - lastContactMillis);
    }
}
