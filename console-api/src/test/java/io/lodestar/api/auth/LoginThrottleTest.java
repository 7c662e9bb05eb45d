package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.UnauthenticatedException;
import io.lodestar.kv.testing.Await;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The login throttle on a clock the test moves: who is refused, for how long, and what attempts cost. */
class LoginThrottleTest {
    private static final int PER_PAIR = LoginThrottle.MAX_FAILURES_PER_NAME_AND_ADDRESS;
    private static final int PER_ADDRESS = LoginThrottle.MAX_FAILURES_PER_ADDRESS;
    private static final long WINDOW = LoginThrottle.WINDOW_MS;
    private static final String HASH = Passwords.hash("the right password");

    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    };

    enum Outcome {
        WRONG_PASSWORD,
        RIGHT_PASSWORD,
        REFUSED
    }

    /** One login attempt at a time after the scenario's start, and what the throttle must make of it. */
    record Step(long atMs, String name, String address, Outcome outcome) {}

    record Scenario(String why, List<Step> steps) {
        @Override
        public String toString() {
            return why;
        }
    }

    private static List<Step> failures(int count, String name, String address, long fromMs) {
        return IntStream.range(0, count)
                .mapToObj(i -> new Step(fromMs + i, name, address, Outcome.WRONG_PASSWORD))
                .toList();
    }

    private static List<Step> steps(List<Step> first, Step... then) {
        List<Step> all = new ArrayList<>(first);
        all.addAll(List.of(then));
        return all;
    }

    static Stream<Scenario> scenarios() {
        List<Step> staleAlice = failures(PER_PAIR, "alice", "10.0.0.1", 0);
        List<Step> addressSpent = IntStream.range(0, PER_ADDRESS)
                .mapToObj(i -> new Step(i, "user" + i, "10.0.0.1", Outcome.WRONG_PASSWORD))
                .toList();
        return Stream.of(
                new Scenario(
                        "a stale password locks out only its own name at its own address",
                        steps(
                                staleAlice,
                                new Step(100, "alice", "10.0.0.1", Outcome.REFUSED),
                                new Step(101, "alice", "10.0.0.2", Outcome.RIGHT_PASSWORD),
                                new Step(102, "bob", "10.0.0.1", Outcome.RIGHT_PASSWORD),
                                new Step(103, "alice", "10.0.0.1", Outcome.REFUSED))),
                new Scenario(
                        "a refused name at an address is refused even with the right password",
                        steps(staleAlice, new Step(100, "alice", "10.0.0.1", Outcome.REFUSED))),
                new Scenario(
                        "the refusal lasts until the oldest failure leaves the window",
                        steps(
                                staleAlice,
                                new Step(WINDOW - 1, "alice", "10.0.0.1", Outcome.REFUSED),
                                // the first failure leaves: one attempt, whose failure takes its place
                                new Step(WINDOW, "alice", "10.0.0.1", Outcome.WRONG_PASSWORD),
                                new Step(WINDOW, "alice", "10.0.0.1", Outcome.REFUSED))),
                new Scenario(
                        "a stale client retrying every 5 s is checked at most the limit a minute",
                        IntStream.range(0, 24)
                                .mapToObj(i -> new Step(
                                        i * 5_000L,
                                        "shared",
                                        "10.0.0.1",
                                        i % 12 < PER_PAIR ? Outcome.WRONG_PASSWORD : Outcome.REFUSED))
                                .toList()),
                new Scenario(
                        "failures under many names spend the address's budget for every name",
                        steps(
                                addressSpent,
                                new Step(100, "carol", "10.0.0.1", Outcome.REFUSED),
                                new Step(101, "carol", "10.0.0.2", Outcome.RIGHT_PASSWORD))),
                new Scenario(
                        "a success forgets its name's failures at its address",
                        steps(
                                failures(PER_PAIR - 1, "alice", "10.0.0.1", 0),
                                new Step(100, "alice", "10.0.0.1", Outcome.RIGHT_PASSWORD),
                                new Step(101, "alice", "10.0.0.1", Outcome.WRONG_PASSWORD),
                                new Step(102, "alice", "10.0.0.1", Outcome.WRONG_PASSWORD),
                                new Step(103, "alice", "10.0.0.1", Outcome.RIGHT_PASSWORD))),
                new Scenario(
                        "a success does not forget its address's failures",
                        steps(
                                addressSpent.subList(0, PER_ADDRESS - 1),
                                new Step(100, "bob", "10.0.0.1", Outcome.RIGHT_PASSWORD),
                                new Step(101, "dave", "10.0.0.1", Outcome.WRONG_PASSWORD),
                                new Step(102, "bob", "10.0.0.1", Outcome.REFUSED))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void eachAttemptIsAdmittedOrRefusedAsTheRulesSay(Scenario scenario) {
        LoginThrottle throttle = new LoginThrottle(clock);
        long start = now.get();
        for (Step step : scenario.steps()) {
            now.set(start + step.atMs());
            String what = step + " in: " + scenario.why();
            if (step.outcome() == Outcome.REFUSED) {
                UnauthenticatedException e = assertThrows(
                        UnauthenticatedException.class, () -> throttle.begin(step.name(), step.address()), what);
                assertTrue(e.getMessage().startsWith("too many failed logins; try again in "), e.getMessage());
                continue;
            }
            LoginThrottle.Attempt attempt = throttle.begin(step.name(), step.address());
            if (step.outcome() == Outcome.WRONG_PASSWORD) {
                attempt.failed();
            } else {
                attempt.succeeded();
            }
        }
    }

    @Test
    void aRefusalSaysWhenTheOldestFailureLeavesTheWindow() {
        LoginThrottle throttle = new LoginThrottle(clock);
        for (int i = 0; i < PER_PAIR; i++) {
            throttle.begin("alice", "10.0.0.1").failed();
        }
        now.addAndGet(WINDOW - 12_500);
        UnauthenticatedException e =
                assertThrows(UnauthenticatedException.class, () -> throttle.begin("alice", "10.0.0.1"));
        assertEquals("too many failed logins; try again in 13 s", e.getMessage());
    }

    @Test
    void parallelWrongGuessesCostAtMostTheLimitInPasswordChecks() throws Exception {
        LoginThrottle throttle = new LoginThrottle(clock);
        AtomicInteger checked = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(24);
        try {
            List<Future<?>> guesses = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                guesses.add(pool.submit(() -> {
                    go.await();
                    try (LoginThrottle.Attempt attempt = throttle.begin("alice", "10.0.0.1")) {
                        checked.incrementAndGet();
                        assertTrue(!Passwords.matches("a guess", HASH), "a real bcrypt check: others run meanwhile");
                        attempt.failed();
                    } catch (UnauthenticatedException e) {
                        refused.incrementAndGet();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> guess : guesses) {
                guess.get(20, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(PER_PAIR, checked.get());
        assertEquals(24 - PER_PAIR, refused.get());
    }

    @Test
    void anAttemptWaitsForAttemptsInFlightAndIsAdmittedIfTheyGiveTheirSlotsBack() throws Exception {
        LoginThrottle throttle = new LoginThrottle(clock);
        List<LoginThrottle.Attempt> inFlight = new ArrayList<>();
        for (int i = 0; i < PER_PAIR; i++) {
            inFlight.add(throttle.begin("alice", "10.0.0.1"));
        }
        CompletableFuture<LoginThrottle.Attempt> waiting =
                CompletableFuture.supplyAsync(() -> throttle.begin("alice", "10.0.0.1"));
        Await.until("the sixth attempt waits", () -> !waiting.isDone() && waitingThreads(throttle) == 1);
        inFlight.get(0).succeeded();
        waiting.get(10, TimeUnit.SECONDS).succeeded();
    }

    @Test
    void anAttemptWaitingForAttemptsInFlightIsRefusedIfTheyFail() throws Exception {
        LoginThrottle throttle = new LoginThrottle(clock);
        List<LoginThrottle.Attempt> inFlight = new ArrayList<>();
        for (int i = 0; i < PER_PAIR; i++) {
            inFlight.add(throttle.begin("alice", "10.0.0.1"));
        }
        CompletableFuture<LoginThrottle.Attempt> waiting =
                CompletableFuture.supplyAsync(() -> throttle.begin("alice", "10.0.0.1"));
        Await.until("the sixth attempt waits", () -> waitingThreads(throttle) == 1);
        inFlight.forEach(LoginThrottle.Attempt::failed);
        var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof UnauthenticatedException, String.valueOf(e.getCause()));
    }

    @Test
    void anAttemptWaitsForAttemptsInFlightNoLongerThanItsBound() {
        LoginThrottle throttle = new LoginThrottle(clock, Duration.ofMillis(50));
        for (int i = 0; i < PER_PAIR; i++) {
            throttle.begin("alice", "10.0.0.1");
        }
        UnauthenticatedException e =
                assertThrows(UnauthenticatedException.class, () -> throttle.begin("alice", "10.0.0.1"));
        assertEquals("too many logins in progress; try again", e.getMessage());
    }

    @Test
    void anAttemptGivenBackUnusedCountsForNothing() {
        LoginThrottle throttle = new LoginThrottle(clock);
        for (int i = 0; i < 3 * PER_PAIR; i++) {
            try (LoginThrottle.Attempt unused = throttle.begin("alice", "10.0.0.1")) {
                // an error before the password check: the slot goes back
            }
        }
        assertEquals(0, throttle.tracked(), "nothing failed, nothing remembered");
    }

    @Test
    void itRemembersABoundedNumberOfFailingNamesAndAddresses() {
        LoginThrottle throttle = new LoginThrottle(clock);
        for (int i = 0; i < 2 * LoginThrottle.MAX_TRACKED; i++) {
            throttle.begin("user" + i, "10.1." + (i / 250) + "." + (i % 250)).failed();
        }
        assertTrue(throttle.tracked() <= LoginThrottle.MAX_TRACKED, "tracked " + throttle.tracked());
        throttle.begin("x".repeat(1_000_000), "10.9.9.9").failed();
        throttle.begin("x".repeat(Users.MAX_NAME + 1) + "y", "10.9.9.9").failed();
        assertTrue(throttle.tracked() <= LoginThrottle.MAX_TRACKED, "tracked " + throttle.tracked());
    }

    /** Threads waiting on the throttle's monitor, as the JVM sees them. */
    private static int waitingThreads(LoginThrottle throttle) {
        int n = 0;
        for (java.lang.management.ThreadInfo t :
                java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(true, false)) {
            if (t.getLockInfo() != null
                    && t.getLockInfo().getIdentityHashCode() == System.identityHashCode(throttle)
                    && t.getThreadState() == Thread.State.TIMED_WAITING) {
                n++;
            }
        }
        return n;
    }
}
