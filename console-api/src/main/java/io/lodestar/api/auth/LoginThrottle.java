package io.lodestar.api.auth;

import io.lodestar.error.UnauthenticatedException;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Limits failed logins per user name and per source address: after {@link #MAX_FAILURES} for a
 * name, or {@link #MAX_FAILURES_PER_ADDRESS} from an address (many users may share one behind a
 * NAT), within {@link #WINDOW_MS}, further attempts for that name or from that address are refused
 * without checking the password until the oldest failure leaves the window. Bounded: it remembers at most
 * {@link #MAX_TRACKED} names and addresses, dropping the least recently failed.
 */
final class LoginThrottle {
    static final int MAX_FAILURES = 5;
    static final int MAX_FAILURES_PER_ADDRESS = 30;
    static final long WINDOW_MS = 60_000;
    static final int MAX_TRACKED = 10_000;

    private final Clock clock;
    private final Map<String, Deque<Long>> failures = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<Long>> eldest) {
            return size() > MAX_TRACKED;
        }
    };

    LoginThrottle(Clock clock) {
        this.clock = clock;
    }

    /** Refuses the attempt if the name or the address failed too often lately. */
    synchronized void check(String username, String address) {
        long now = clock.millis();
        long wait = Math.max(
                waitMs("user " + username, MAX_FAILURES, now),
                waitMs("address " + address, MAX_FAILURES_PER_ADDRESS, now));
        if (wait > 0) {
            throw new UnauthenticatedException("too many failed logins; try again in " + ((wait + 999) / 1000) + " s");
        }
    }

    synchronized void failed(String username, String address) {
        long now = clock.millis();
        failures.computeIfAbsent("user " + username, k -> new ArrayDeque<>()).addLast(now);
        failures.computeIfAbsent("address " + address, k -> new ArrayDeque<>()).addLast(now);
    }

    synchronized void succeeded(String username) {
        failures.remove("user " + username);
    }

    private long waitMs(String key, int max, long now) {
        Deque<Long> times = failures.get(key);
        if (times == null) {
            return 0;
        }
        while (!times.isEmpty() && now - times.peekFirst() >= WINDOW_MS) {
            times.pollFirst();
        }
        if (times.isEmpty()) {
            failures.remove(key);
            return 0;
        }
        // the oldest of the last max failures must leave the window
        return times.size() >= max ? WINDOW_MS - (now - times.toArray(new Long[0])[times.size() - max]) : 0;
    }
}
