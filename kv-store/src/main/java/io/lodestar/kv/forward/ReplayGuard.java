package io.lodestar.kv.forward;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers the nonces of accepted frames for longer than the accepted clock skew, so a frame
 * captured off the wire cannot be sent again: frames older than the skew are refused by time,
 * younger ones by nonce.
 */
final class ReplayGuard {
    private final long retainMillis;
    private final Map<Long, Long> seen = new ConcurrentHashMap<>();
    private volatile long nextPurge;

    ReplayGuard(long retainMillis) {
        this.retainMillis = retainMillis;
    }

    /** True the first time {@code nonce} is offered within the retention window. */
    boolean firstSighting(long nonce, long sentAtMillis) {
        long now = System.currentTimeMillis();
        if (now >= nextPurge) {
            purge(now);
        }
        return seen.putIfAbsent(nonce, sentAtMillis) == null;
    }

    private void purge(long now) {
        nextPurge = now + 1000;
        for (Iterator<Long> it = seen.values().iterator(); it.hasNext(); ) {
            if (it.next() < now - retainMillis) {
                it.remove();
            }
        }
    }
}
