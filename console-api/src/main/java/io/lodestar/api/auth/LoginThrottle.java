package io.lodestar.api.auth;

import io.lodestar.error.UnauthenticatedException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Limits failed logins per (user name, source address) and per source address, never per name
 * alone: a client retrying a stale password locks out only itself, and a correct password from an
 * address that has not been failing is never refused. After {@link
 * #MAX_FAILURES_PER_NAME_AND_ADDRESS} failures of one name from one address, or {@link
 * #MAX_FAILURES_PER_ADDRESS} from one address under any names (many users may share one behind a
 * NAT), within {@link #WINDOW_MS}, further attempts of that name from that address, or from that
 * address, are refused without a password check until the oldest of those failures leaves the
 * window. A success clears the failures of its name from its address, not its address's.
 *
 * <p>Checking the budget and taking a share of it are one step: {@link #begin} reserves a slot
 * before the password is checked, and the {@link Attempt} turns it into a failure or gives it back.
 * So parallel wrong guesses cost at most the budget in password checks. An attempt that finds the
 * budget spent by failures is refused at once; one that finds it held by attempts still in flight
 * (which may yet succeed) waits for them, at most {@link #MAX_WAIT}.
 *
 * <p>Bounded: it remembers at most {@link #MAX_TRACKED} names-at-addresses and addresses that have
 * failed lately, forgetting the least recently used first (never one with an attempt in flight),
 * and at most the budget of failures for each.
 */
final class LoginThrottle {
    static final int MAX_FAILURES_PER_NAME_AND_ADDRESS = 5;
    static final int MAX_FAILURES_PER_ADDRESS = 30;
    static final long WINDOW_MS = 60_000;
    static final int MAX_TRACKED = 10_000;
    static final Duration MAX_WAIT = Duration.ofSeconds(10);

    private record NameAtAddress(String username, String address) {}

    private record Address(String address) {}

    /** One key's failures within the window (oldest first) and its attempts in flight. */
    private static final class Budget {
        final int max;
        final ArrayDeque<Long> failures = new ArrayDeque<>();
        int inFlight;

        Budget(int max) {
            this.max = max;
        }

        /** How long this key is refused from {@code now}: 0 unless its failures spent the budget. */
        long refusedForMs(long now) {
            while (!failures.isEmpty() && now - failures.peekFirst() >= WINDOW_MS) {
                failures.pollFirst();
            }
            // a reservation is needed to fail, so there are never more failures than max
            return failures.size() >= max ? WINDOW_MS - (now - failures.peekFirst()) : 0;
        }

        boolean full() {
            return failures.size() + inFlight >= max;
        }

        boolean idle() {
            return failures.isEmpty() && inFlight == 0;
        }
    }

    private final Clock clock;
    private final Duration maxWait;
    // in access order: the least recently used first
    private final Map<Object, Budget> budgets = new LinkedHashMap<>(256, 0.75f, true);

    LoginThrottle(Clock clock) {
        this(clock, MAX_WAIT);
    }

    /** With another bound on the wait for attempts in flight than {@link #MAX_WAIT}. */
    LoginThrottle(Clock clock, Duration maxWait) {
        this.clock = clock;
        this.maxWait = maxWait;
    }

    /**
     * Reserves an attempt to log in as {@code username} from {@code address}, or refuses it with
     * {@link UnauthenticatedException} saying when to try again. The caller checks the password only
     * with a reservation and then ends it exactly once: {@link Attempt#failed}, {@link
     * Attempt#succeeded}, or {@link Attempt#close} to give it back unused. Blocks while the budget
     * is held by attempts in flight, at most {@link #MAX_WAIT}; then it is refused too.
     */
    Attempt begin(String username, String address) {
        // a name longer than any user's is only ever wrong: its first characters key it, bounding memory
        String name = username.length() > Users.MAX_NAME ? username.substring(0, Users.MAX_NAME + 1) : username;
        NameAtAddress pairKey = new NameAtAddress(name, address);
        Address addressKey = new Address(address);
        long deadline = System.nanoTime() + maxWait.toNanos();
        synchronized (this) {
            while (true) {
                long now = clock.millis();
                Budget pair = budgets.computeIfAbsent(pairKey, k -> new Budget(MAX_FAILURES_PER_NAME_AND_ADDRESS));
                Budget source = budgets.computeIfAbsent(addressKey, k -> new Budget(MAX_FAILURES_PER_ADDRESS));
                long refusedMs = Math.max(pair.refusedForMs(now), source.refusedForMs(now));
                if (refusedMs > 0) {
                    forgetIfIdle(pairKey, pair);
                    forgetIfIdle(addressKey, source);
                    throw new UnauthenticatedException(
                            "too many failed logins; try again in " + ((refusedMs + 999) / 1000) + " s");
                }
                if (!pair.full() && !source.full()) {
                    pair.inFlight++;
                    source.inFlight++;
                    trim();
                    return new Attempt(pairKey, pair, addressKey, source);
                }
                long waitNs = deadline - System.nanoTime();
                if (waitNs <= 0) {
                    throw new UnauthenticatedException("too many logins in progress; try again");
                }
                try {
                    wait(Math.max(1, waitNs / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new UnauthenticatedException("too many logins in progress; try again");
                }
            }
        }
    }

    /** How many keys it remembers now (for tests of its bound). */
    synchronized int tracked() {
        return budgets.size();
    }

    private void forgetIfIdle(Object key, Budget budget) {
        if (budget.idle()) {
            budgets.remove(key);
        }
    }

    private void trim() {
        Iterator<Budget> oldestFirst = budgets.values().iterator();
        while (budgets.size() > MAX_TRACKED && oldestFirst.hasNext()) {
            if (oldestFirst.next().inFlight == 0) {
                oldestFirst.remove();
            }
        }
    }

    /** A reserved attempt; ends once, by the first of its methods called. */
    final class Attempt implements AutoCloseable {
        private final NameAtAddress pairKey;
        private final Budget pair;
        private final Address addressKey;
        private final Budget source;
        private boolean ended;

        private Attempt(NameAtAddress pairKey, Budget pair, Address addressKey, Budget source) {
            this.pairKey = pairKey;
            this.pair = pair;
            this.addressKey = addressKey;
            this.source = source;
        }

        /** The password was wrong: the slot becomes a failure of the name at the address and of the address. */
        void failed() {
            synchronized (LoginThrottle.this) {
                if (!ended) {
                    long now = clock.millis();
                    pair.failures.addLast(now);
                    source.failures.addLast(now);
                    end();
                }
            }
        }

        /** The password was right: the slot is given back, and the name's failures at the address forgotten. */
        void succeeded() {
            synchronized (LoginThrottle.this) {
                if (!ended) {
                    pair.failures.clear();
                    end();
                }
            }
        }

        /** Gives the slot back unused, unless the attempt already ended. */
        @Override
        public void close() {
            synchronized (LoginThrottle.this) {
                if (!ended) {
                    end();
                }
            }
        }

        /** Releases the reservation; the caller holds the lock. */
        private void end() {
            ended = true;
            pair.inFlight--;
            source.inFlight--;
            forgetIfIdle(pairKey, pair);
            forgetIfIdle(addressKey, source);
            LoginThrottle.this.notifyAll();
        }
    }
}
