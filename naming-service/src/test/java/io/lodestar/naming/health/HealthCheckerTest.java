package io.lodestar.naming.health;

import static io.lodestar.naming.health.ProbeResult.Outcome.DOWN;
import static io.lodestar.naming.health.ProbeResult.Outcome.UP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import io.lodestar.naming.model.CheckerType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The checker against real sockets and a real HTTP server on 127.0.0.1, with short intervals. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HealthCheckerTest {
    private static final Duration TICK = Duration.ofMillis(10);
    private static final Duration INTERVAL = Duration.ofMillis(50);
    private static final Duration TIMEOUT = Duration.ofMillis(1_000);
    private static final String LOCALHOST = "127.0.0.1";
    private static final ProbeScope LOOPBACK_ONLY = ProbeScope.parse("127.0.0.0/8");

    private final FakeRegistry registry = new FakeRegistry();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private static ProbeSettings fast(ProbeSettings s, int failures, int successes) {
        return s.withTiming(TIMEOUT, INTERVAL).withThresholds(failures, successes);
    }

    private HealthChecker start(BooleanSupplier isLeader) {
        HealthChecker checker = new HealthChecker(registry, registry, isLeader, LOOPBACK_ONLY, TICK, 64);
        toClose.add(checker);
        return checker.start();
    }

    private <T extends AutoCloseable> T closing(T resource) {
        toClose.add(resource);
        return resource;
    }

    @Test
    void tcpTargetFlipsUnhealthyWhenItsPortClosesAndHealthyWhenItListensAgain() throws Exception {
        TcpServer server = closing(new TcpServer());
        registry.put(new ProbeTarget("a", LOCALHOST, server.port(), true, fast(ProbeSettings.tcp(), 3, 1)));
        start(() -> true);

        Await.until("three probes connected", () -> server.accepted() >= 3);
        assertEquals(List.of(), registry.flipNames(), "a healthy target that answers is never reported");

        server.stop();
        Await.until("flipped unhealthy", () -> !registry.healthy("a"), registry::flipNames);
        server.restart();
        Await.until("flipped healthy again", () -> registry.healthy("a"), registry::flipNames);

        int accepted = server.accepted();
        Await.until("more probes connected", () -> server.accepted() >= accepted + 3);
        assertEquals(List.of("a->unhealthy", "a->healthy"), registry.flipNames());
    }

    @Test
    void httpTargetFlipsUnhealthyOn500AndHealthyOn200() {
        ScriptedHttpServer server = closing(assertDoesNotThrowIo(ScriptedHttpServer::new));
        registry.put(new ProbeTarget("h", LOCALHOST, server.port(), true, fast(ProbeSettings.http("/health"), 2, 1)));
        start(() -> true);

        Await.until("answered three probes", () -> server.requests() >= 3);
        assertEquals(List.of(), registry.flipNames());

        server.answer(500);
        Await.until("flipped unhealthy", () -> !registry.healthy("h"), registry::flipNames);
        server.answer(200);
        Await.until("flipped healthy", () -> registry.healthy("h"), registry::flipNames);
        assertEquals(List.of("h->unhealthy", "h->healthy"), registry.flipNames());
    }

    @Test
    void httpExpectedStatusesReplaceAny2xx() {
        ScriptedHttpServer server = closing(assertDoesNotThrowIo(ScriptedHttpServer::new));
        server.answer(204);
        registry.put(new ProbeTarget(
                "h",
                LOCALHOST,
                server.port(),
                true,
                fast(ProbeSettings.http("/health").withExpectedStatuses(java.util.Set.of(200)), 1, 1)));
        start(() -> true);

        Await.until("a 204 is unhealthy when only 200 is expected", () -> !registry.healthy("h"), registry::flipNames);
    }

    @Test
    void failuresMustBeConsecutiveToFlip() {
        ScriptedHttpServer server = closing(assertDoesNotThrowIo(ScriptedHttpServer::new));
        server.answer(500, 500, 200);
        registry.put(new ProbeTarget("h", LOCALHOST, server.port(), true, fast(ProbeSettings.http("/health"), 3, 1)));
        start(() -> true);

        Await.until("answered 15 probes (two failures, then a success, five times)", () -> server.requests() >= 15);
        assertEquals(List.of(), registry.flipNames(), "never three failures in a row");

        server.answer(500);
        int before = server.requests();
        Await.until("flipped unhealthy", () -> !registry.healthy("h"), registry::flipNames);
        assertTrue(server.requests() - before >= 3, "flipped after " + (server.requests() - before) + " failures");
    }

    @Test
    void successesMustBeConsecutiveToFlipBack() {
        ScriptedHttpServer server = closing(assertDoesNotThrowIo(ScriptedHttpServer::new));
        server.answer(200, 500);
        registry.put(new ProbeTarget("h", LOCALHOST, server.port(), false, fast(ProbeSettings.http("/health"), 3, 2)));
        start(() -> true);

        Await.until("answered 12 probes (alternating)", () -> server.requests() >= 12);
        assertEquals(List.of(), registry.flipNames(), "never two successes in a row");

        // End the alternation on a failure: its last answer may have been a success, which the
        // next would make two in a row before anything here counts them.
        server.answer(500);
        int switched = server.requests();
        Await.until("a failure answered after the switch", () -> server.requests() >= switched + 2);
        int before = server.requests();
        server.answer(200);
        Await.until("flipped healthy", () -> registry.healthy("h"), registry::flipNames);
        assertTrue(server.requests() - before >= 2, "flipped after " + (server.requests() - before) + " successes");
    }

    @Test
    void noFlipWhenTheStoredHealthIsAlreadyRight() throws Exception {
        TcpServer open = closing(new TcpServer());
        TcpServer closed = new TcpServer();
        closed.stop();
        registry.put(new ProbeTarget("up", LOCALHOST, open.port(), true, fast(ProbeSettings.tcp(), 1, 1)));
        registry.put(new ProbeTarget("down", LOCALHOST, closed.port(), false, fast(ProbeSettings.tcp(), 1, 1)));
        HealthChecker checker = start(() -> true);

        Await.until("20 probes counted", () -> checker.probesCompleted() >= 20);
        assertTrue(open.accepted() >= 5, "the open port was probed: " + open.accepted());
        assertEquals(List.of(), registry.flipNames());
    }

    @Test
    void aFollowerProbesNothing() throws Exception {
        TcpServer server = closing(new TcpServer());
        ScriptedHttpServer http = closing(assertDoesNotThrowIo(ScriptedHttpServer::new));
        http.answer(500);
        registry.put(new ProbeTarget("t", LOCALHOST, server.port(), true, fast(ProbeSettings.tcp(), 1, 1)));
        registry.put(new ProbeTarget("h", LOCALHOST, http.port(), true, fast(ProbeSettings.http("/health"), 1, 1)));
        AtomicInteger asked = new AtomicInteger();
        HealthChecker checker = start(() -> {
            asked.incrementAndGet();
            return false;
        });

        Await.until("asked whether leading 30 times", () -> asked.get() >= 30);
        assertEquals(0, registry.listings(), "a follower does not even list the targets");
        assertEquals(0, checker.probesStarted());
        assertEquals(0, server.accepted());
        assertEquals(0, http.requests());
        assertEquals(List.of(), registry.flipNames());
    }

    @Test
    void losingLeadershipStopsTheProbes() throws Exception {
        TcpServer server = closing(new TcpServer());
        registry.put(new ProbeTarget("t", LOCALHOST, server.port(), true, fast(ProbeSettings.tcp(), 1, 1)));
        AtomicBoolean leading = new AtomicBoolean(true);
        AtomicInteger asked = new AtomicInteger();
        HealthChecker checker = start(() -> {
            asked.incrementAndGet();
            return leading.get();
        });
        Await.until("probing as leader", () -> server.accepted() >= 3);

        leading.set(false);
        int askedAtLoss = asked.get();
        // two more ticks: the one running when leadership went may still have started a probe
        Await.until("two ticks as follower", () -> asked.get() >= askedAtLoss + 2);
        long started = checker.probesStarted();
        int askedThen = asked.get();
        Await.until("20 more ticks as follower", () -> asked.get() >= askedThen + 20);
        assertEquals(started, checker.probesStarted(), "probes started as follower");
    }

    @Test
    void targetsWithTypeNoneAreNotProbed() throws Exception {
        TcpServer none = closing(new TcpServer());
        TcpServer tcp = closing(new TcpServer());
        registry.put(new ProbeTarget("none", LOCALHOST, none.port(), true, fast(ProbeSettings.NONE, 1, 1)));
        registry.put(new ProbeTarget("tcp", LOCALHOST, tcp.port(), true, fast(ProbeSettings.tcp(), 1, 1)));
        start(() -> true);

        Await.until("the TCP target probed 5 times", () -> tcp.accepted() >= 5);
        assertEquals(0, none.accepted());
    }

    @Test
    void theCheckPortOverridesTheInstancePort() throws Exception {
        TcpServer checkPort = closing(new TcpServer());
        TcpServer closed = new TcpServer();
        closed.stop();
        registry.put(new ProbeTarget(
                "t", LOCALHOST, closed.port(), true, fast(ProbeSettings.tcp().withPort(checkPort.port()), 1, 1)));
        HealthChecker checker = start(() -> true);

        Await.until(
                "three probes counted on the check port",
                () -> checker.probesCompleted() >= 3 && checkPort.accepted() >= 3);
        assertEquals(List.of(), registry.flipNames(), "the instance's own (closed) port is not probed");
    }

    @Test
    void aTargetThatLeavesIsForgottenAndCountsAfreshWhenItReturns() {
        ScriptedProbe probe = new ScriptedProbe();
        HealthChecker checker = new HealthChecker(
                registry, registry, () -> true, LOOPBACK_ONLY, TICK, 64, Map.of(CheckerType.TCP, probe));
        toClose.add(checker);
        ProbeTarget target = new ProbeTarget("t", LOCALHOST, 1, true, fast(ProbeSettings.tcp(), 3, 1));
        registry.put(target);
        probe.then(DOWN, DOWN);
        checker.start();
        // a probe starts only once the previous one's result was counted
        Await.until("both failures counted", () -> probe.calls() >= 3);

        registry.remove("t");
        int listings = registry.listings();
        Await.until("listed twice without it", () -> registry.listings() >= listings + 2);
        probe.then(DOWN, DOWN);
        int calls = probe.calls();
        registry.put(target);
        Await.until("two more failures counted", () -> probe.left() == 0 && probe.calls() >= calls + 3);
        assertEquals(List.of(), registry.flipNames(), "two failures before and two after leaving are not three");

        probe.then(DOWN);
        Await.until("the third failure in a row flips", () -> !registry.healthy("t"), registry::flipNames);
        assertEquals(List.of("t->unhealthy"), registry.flipNames());
    }

    @Test
    void aFlipThatIsNotStoredIsAskedAgainOnlyAfterThreeIntervals() {
        ScriptedProbe probe = new ScriptedProbe();
        HealthChecker checker = new HealthChecker(
                registry, registry, () -> true, LOOPBACK_ONLY, TICK, 64, Map.of(CheckerType.TCP, probe));
        toClose.add(checker);
        registry.dropFlips(true);
        registry.put(new ProbeTarget("t", LOCALHOST, 1, true, fast(ProbeSettings.tcp(), 1, 1)));
        for (int i = 0; i < 200; i++) {
            probe.then(DOWN);
        }
        checker.start();

        Await.until("asked twice", () -> registry.flips().size() >= 2, registry::flipNames);
        List<FakeRegistry.Flip> flips = registry.flips();
        long apartMs = TimeUnit.NANOSECONDS.toMillis(
                flips.get(1).atNanos() - flips.get(0).atNanos());
        assertTrue(
                apartMs >= HealthChecker.RETRY_INTERVALS * INTERVAL.toMillis(), "asked again after " + apartMs + " ms");
        assertFalse(flips.get(1).healthy());
    }

    @Test
    void aSinkThatThrowsDoesNotStopTheChecker() {
        ScriptedProbe probe = new ScriptedProbe();
        AtomicInteger calls = new AtomicInteger();
        HealthChecker checker = new HealthChecker(
                registry,
                (id, healthy) -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("store unavailable");
                },
                () -> true,
                LOOPBACK_ONLY,
                TICK,
                64,
                Map.of(CheckerType.TCP, probe));
        toClose.add(checker);
        registry.put(new ProbeTarget("t", LOCALHOST, 1, true, fast(ProbeSettings.tcp(), 1, 1)));
        for (int i = 0; i < 200; i++) {
            probe.then(DOWN);
        }
        checker.start();

        Await.until("asked again after the sink threw", () -> calls.get() >= 2);
    }

    @Test
    void unknownResultsCountNeitherWay() {
        ScriptedProbe probe = new ScriptedProbe();
        HealthChecker checker = new HealthChecker(
                registry, registry, () -> true, LOOPBACK_ONLY, TICK, 64, Map.of(CheckerType.TCP, probe));
        toClose.add(checker);
        registry.put(new ProbeTarget("t", LOCALHOST, 1, true, fast(ProbeSettings.tcp(), 2, 1)));
        probe.then(DOWN);
        checker.start();
        Await.until("ten unknown results after the failure", () -> probe.calls() >= 11);
        assertEquals(List.of(), registry.flipNames());

        probe.then(DOWN);
        Await.until("a second failure, unknowns between, flips", () -> !registry.healthy("t"), registry::flipNames);
        probe.then(UP);
        Await.until("and one success flips back", () -> registry.healthy("t"), registry::flipNames);
    }

    @Test
    void addressesOutsideTheScopeAreNeverDialledAndKeepTheirHealth() {
        ScriptedProbe probe = new ScriptedProbe();
        HealthChecker checker = new HealthChecker(
                registry,
                registry,
                () -> true,
                LOOPBACK_ONLY,
                TICK,
                64,
                Map.of(CheckerType.TCP, probe, CheckerType.HTTP, probe));
        toClose.add(checker);
        registry.put(new ProbeTarget("private", "10.0.0.1", 80, true, fast(ProbeSettings.tcp(), 1, 1)));
        registry.put(new ProbeTarget("metadata", "169.254.169.254", 80, false, fast(ProbeSettings.http("/"), 1, 1)));
        registry.put(new ProbeTarget("local", LOCALHOST, 80, true, fast(ProbeSettings.tcp(), 1, 1)));
        for (int i = 0; i < 200; i++) {
            probe.then(UP);
        }
        checker.start();

        Await.until(
                "the loopback target probed five times and both others refused twice",
                () -> probe.calls() >= 5 && checker.probesRefused() >= 4);
        assertEquals(
                Set.of(new InetSocketAddress(LOCALHOST, 80)),
                Set.copyOf(probe.targets()),
                "only the loopback address was handed to a probe");
        assertEquals(List.of(), registry.flipNames(), "an unprobed target keeps the health it was listed with");
        assertEquals("10.0.0.1 is outside --probe-allow 127.0.0.0/8", checker.refusal("private"));
        assertEquals("169.254.169.254 is never probed (in 169.254.0.0/16)", checker.refusal("metadata"));
        assertEquals(null, checker.refusal("local"));
        assertEquals(checker.probesStarted(), probe.calls(), "refusals are not counted as probes started");
    }

    @Test
    void aHostNameIsCheckedAgainstTheAddressItResolvesTo() {
        ScriptedProbe probe = new ScriptedProbe();
        HealthChecker checker = new HealthChecker(
                registry,
                registry,
                () -> true,
                ProbeScope.parse("10.0.0.0/8"),
                TICK,
                64,
                Map.of(CheckerType.TCP, probe));
        toClose.add(checker);
        registry.put(new ProbeTarget("named", "localhost", 80, true, fast(ProbeSettings.tcp(), 1, 1)));
        checker.start();

        Await.until("refused after resolving", () -> checker.refusal("named") != null);
        assertTrue(checker.refusal("named").endsWith(" is outside --probe-allow 10.0.0.0/8"), checker.refusal("named"));
        assertEquals(0, probe.calls(), "a name that resolves outside the scope is not probed");
    }

    @Test
    void aTargetThatLeavesTheScopeIsProbedAgainOnceItsAddressIsInside() {
        ScriptedProbe probe = new ScriptedProbe();
        HealthChecker checker = new HealthChecker(
                registry, registry, () -> true, LOOPBACK_ONLY, TICK, 64, Map.of(CheckerType.TCP, probe));
        toClose.add(checker);
        registry.put(new ProbeTarget("moving", "10.0.0.1", 80, true, fast(ProbeSettings.tcp(), 1, 1)));
        checker.start();
        Await.until("refused", () -> checker.refusal("moving") != null);

        probe.then(DOWN);
        registry.put(new ProbeTarget("moving", LOCALHOST, 80, true, fast(ProbeSettings.tcp(), 1, 1)));
        Await.until("probed at its new address and flipped", () -> !registry.healthy("moving"), registry::flipNames);
        assertEquals(null, checker.refusal("moving"));
    }

    private interface IoSupplier<T> {
        T get() throws java.io.IOException;
    }

    private static <T> T assertDoesNotThrowIo(IoSupplier<T> s) {
        try {
            return s.get();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
