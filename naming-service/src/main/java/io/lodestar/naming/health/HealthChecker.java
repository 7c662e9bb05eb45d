package io.lodestar.naming.health;

import io.lodestar.naming.model.CheckerType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes the persistent instances listed by {@link ProbeTargets} while this node leads, and tells
 * the {@link HealthSink} when one's health must flip.
 *
 * <p>Every tick the checker asks {@code isLeader}; on a follower it probes nothing and forgets all
 * it had counted (a node that becomes leader again starts from fresh counts). On the leader it
 * lists the targets, forgets those no longer listed, and starts the probes that are due. Each
 * target runs on its own clock: its first probe comes at a random point within one interval of
 * first sight (so a new leader's hundreds of targets spread over the interval instead of firing
 * together), each next one {@code interval} ± {@value #JITTER_PERCENT}% after the last started,
 * never two at once. Results are counted by {@link TargetHealth}; the sink hears only of flips.
 * A probe result of UNKNOWN (our side failed) counts neither way.
 *
 * <p>Scope: each probe first resolves the target's address (a host name once per probe, so that
 * what is checked is what is dialled) and goes ahead only if the {@link ProbeScope} allows it. A
 * target outside the scope is not probed and counts neither way: it keeps the health it has, and
 * {@link #refusal} says why until it is probed again or forgotten.
 *
 * <p>Threads: one scheduler thread, {@value #SCHEDULER_THREAD}, does all the counting and calls
 * {@code targets}, {@code isLeader} and the sink; the probes run on their own threads ({@link
 * TcpProbe}, {@link HttpProbe}) and hand results back to it; a host name (not an IP literal) is
 * resolved on {@value #RESOLVER_THREAD}, so a slow name server delays only those probes. At most
 * {@code maxInFlight} probes run at once; due targets beyond that wait for the next tick, oldest
 * due first.
 */
public final class HealthChecker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HealthChecker.class);
    public static final int JITTER_PERCENT = 20;
    public static final Duration DEFAULT_TICK = Duration.ofMillis(250);
    public static final int DEFAULT_MAX_IN_FLIGHT = 512;
    /** A flip not yet seen stored after this many intervals is asked again. */
    static final int RETRY_INTERVALS = 3;

    static final String SCHEDULER_THREAD = "health-check-scheduler";
    static final String RESOLVER_THREAD = "health-check-resolver";
    private static final int RESOLVER_QUEUE = 1024;

    private final ProbeTargets targets;
    private final HealthSink sink;
    private final BooleanSupplier isLeader;
    private final ProbeScope scope;
    private final Duration tick;
    private final int maxInFlight;
    private final Map<CheckerType, Probe> probes;
    private final ScheduledThreadPoolExecutor scheduler;
    private final ThreadPoolExecutor resolver;
    private final AtomicLong probesStarted = new AtomicLong();
    private final AtomicLong probesCompleted = new AtomicLong();
    private final AtomicLong probesRefused = new AtomicLong();
    /** Why a target was last not probed, by id; read by any thread. */
    private final Map<String, String> refusals = new ConcurrentHashMap<>();

    private volatile boolean closed;
    private boolean started;

    // confined to the scheduler thread
    private final Map<String, TargetHealth> states = new HashMap<>();
    private int inFlight;

    /**
     * A checker that probes only inside {@code scope}, lists the targets every {@code tick} (also
     * the precision of each target's timing: keep it well under the shortest interval) and runs at
     * most {@code maxInFlight} probes at once, with a new {@link TcpProbe} and {@link HttpProbe}.
     * Nothing runs until {@link #start()}.
     */
    public HealthChecker(
            ProbeTargets targets,
            HealthSink sink,
            BooleanSupplier isLeader,
            ProbeScope scope,
            Duration tick,
            int maxInFlight) {
        this(targets, sink, isLeader, scope, tick, maxInFlight, defaultProbes());
    }

    /** As above with the given probes (closed with the checker); for tests. */
    HealthChecker(
            ProbeTargets targets,
            HealthSink sink,
            BooleanSupplier isLeader,
            ProbeScope scope,
            Duration tick,
            int maxInFlight,
            Map<CheckerType, Probe> probes) {
        if (tick.isNegative() || tick.isZero()) {
            throw new IllegalArgumentException("tick must be positive: " + tick);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
        }
        this.targets = targets;
        this.sink = sink;
        this.isLeader = isLeader;
        this.scope = Objects.requireNonNull(scope, "scope");
        this.tick = tick;
        this.maxInFlight = maxInFlight;
        this.probes = new EnumMap<>(probes);
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> daemon(r, SCHEDULER_THREAD));
        this.resolver = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(RESOLVER_QUEUE),
                r -> daemon(r, RESOLVER_THREAD));
    }

    private static Map<CheckerType, Probe> defaultProbes() {
        Map<CheckerType, Probe> probes = new EnumMap<>(CheckerType.class);
        probes.put(CheckerType.TCP, new TcpProbe());
        probes.put(CheckerType.HTTP, new HttpProbe());
        return probes;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Starts ticking. Idempotent; an {@link IllegalStateException} after {@link #close()}. */
    public synchronized HealthChecker start() {
        if (closed) {
            throw new IllegalStateException("health checker is closed");
        }
        if (!started) {
            started = true;
            scheduler.scheduleWithFixedDelay(this::tickSafely, 0, tick.toNanos(), TimeUnit.NANOSECONDS);
        }
        return this;
    }

    /** Probes started since construction (for metrics and tests). */
    public long probesStarted() {
        return probesStarted.get();
    }

    /** Probes whose result was counted since construction (for metrics and tests). */
    public long probesCompleted() {
        return probesCompleted.get();
    }

    /** Probes not made since construction because the target's address is outside the scope (for metrics and tests). */
    public long probesRefused() {
        return probesRefused.get();
    }

    /**
     * Why the target {@code id} was not probed when it was last due, or null if it was probed then
     * (or is not known here: this node does not lead, or the target was never due).
     */
    public String refusal(String id) {
        return refusals.get(id);
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            // a bad tick must not cancel the schedule (an executor drops a task that throws)
            LOG.error("health check tick failed", e);
        }
    }

    private void tick() {
        if (closed) {
            return;
        }
        if (!leading()) {
            if (!states.isEmpty()) {
                LOG.info("not the leader: health checks paused, {} targets' counts dropped", states.size());
                states.clear();
                refusals.clear();
            }
            return;
        }
        Collection<ProbeTarget> listed;
        try {
            listed = targets.current();
        } catch (RuntimeException e) {
            LOG.warn("listing health check targets failed; trying again next tick", e);
            return;
        }
        long now = System.nanoTime();
        Set<String> seen = new HashSet<>();
        List<TargetHealth> due = new ArrayList<>();
        for (ProbeTarget target : listed) {
            if (target.settings().type() == CheckerType.NONE || !seen.add(target.id())) {
                continue;
            }
            TargetHealth state = states.get(target.id());
            if (state == null || state.probedDifferently(target)) {
                long firstDelay = ThreadLocalRandom.current()
                        .nextLong(target.settings().interval().toNanos());
                state = new TargetHealth(target, now + firstDelay);
                states.put(target.id(), state);
            } else {
                state.target = target;
            }
            if (!state.inFlight && state.nextDueNanos <= now) {
                due.add(state);
            }
        }
        states.keySet().retainAll(seen);
        refusals.keySet().retainAll(seen);
        due.sort(Comparator.comparingLong(s -> s.nextDueNanos));
        for (TargetHealth state : due) {
            if (inFlight >= maxInFlight) {
                break;
            }
            launch(state, now);
        }
    }

    private boolean leading() {
        try {
            return isLeader.getAsBoolean();
        } catch (RuntimeException e) {
            LOG.warn("cannot tell whether this node leads; not probing", e);
            return false;
        }
    }

    private void launch(TargetHealth state, long now) {
        ProbeTarget target = state.target;
        long interval = target.settings().interval().toNanos();
        long jitter = interval * JITTER_PERCENT / 100;
        state.nextDueNanos = now + interval + ThreadLocalRandom.current().nextLong(-jitter, jitter + 1);
        state.inFlight = true;
        inFlight++;
        Probe probe = probes.get(target.settings().type());
        if (probe == null) {
            onResult(
                    state,
                    ProbeResult.unknown("no probe for " + target.settings().type()));
            return;
        }
        if (Cidr.isIpLiteral(target.ip())) {
            resolveAndStart(probe, state, target); // a literal is parsed, not looked up
        } else {
            try {
                resolver.execute(() -> resolveAndStart(probe, state, target));
            } catch (RejectedExecutionException e) {
                onResult(state, ProbeResult.unknown("too many host names waiting to be resolved"));
            }
        }
    }

    /**
     * Resolves the target, checks the address against the scope and, if allowed, starts the probe
     * of that very address on this thread; the outcome is counted on the scheduler thread.
     */
    private void resolveAndStart(Probe probe, TargetHealth state, ProbeTarget target) {
        InetAddress address;
        try {
            address = InetAddress.getByName(target.ip());
        } catch (UnknownHostException e) {
            toScheduler(() -> onResult(state, ProbeResult.down("unknown host " + target.ip())));
            return;
        }
        String refusal = scope.refusal(address);
        if (refusal != null) {
            probesRefused.incrementAndGet();
            toScheduler(() -> onRefused(state, refusal));
            return;
        }
        refusals.remove(target.id());
        probesStarted.incrementAndGet();
        CompletableFuture<ProbeResult> result;
        try {
            result = probe.probe(new InetSocketAddress(address, target.probePort()), target.settings());
        } catch (RuntimeException e) {
            result = CompletableFuture.completedFuture(ProbeResult.unknown("probe failed to start: " + e));
        }
        result.whenComplete((r, e) -> {
            ProbeResult counted = e == null ? r : ProbeResult.unknown("probe failed: " + e);
            toScheduler(() -> onResult(state, counted));
        });
    }

    private void toScheduler(Runnable task) {
        try {
            scheduler.execute(task);
        } catch (RejectedExecutionException closedMeanwhile) {
            // the checker is closed: nobody counts any more
        }
    }

    private void onRefused(TargetHealth state, String refusal) {
        inFlight--;
        state.inFlight = false;
        if (closed || states.get(state.target.id()) != state) {
            return;
        }
        if (!refusal.equals(refusals.put(state.target.id(), refusal))) {
            LOG.info(
                    "health check: not probing {}:{}: {}; its health stays as stored",
                    state.target.ip(),
                    state.target.probePort(),
                    refusal);
        }
    }

    private void onResult(TargetHealth state, ProbeResult result) {
        inFlight--;
        state.inFlight = false;
        if (closed || states.get(state.target.id()) != state) {
            return; // forgotten meanwhile: the target left, was re-pointed, or we stopped leading
        }
        probesCompleted.incrementAndGet();
        if (result.outcome() == ProbeResult.Outcome.UNKNOWN) {
            LOG.debug("health probe of {} inconclusive: {}", state.target.id(), result.detail());
            return;
        }
        boolean up = result.outcome() == ProbeResult.Outcome.UP;
        long retryAfter = state.target.settings().interval().toNanos() * RETRY_INTERVALS;
        Boolean flip = state.record(up, System.nanoTime(), retryAfter);
        if (flip == null || !leading()) {
            return;
        }
        LOG.info(
                "health check: {} is {} after {} {} in a row (last: {})",
                state.target.id(),
                flip ? "healthy" : "unhealthy",
                state.streak(),
                up ? "successes" : "failures",
                result.detail());
        try {
            sink.flip(state.target.id(), flip);
        } catch (RuntimeException e) {
            LOG.warn(
                    "reporting the health of {} failed; it is asked again if it does not change", state.target.id(), e);
        } finally {
            state.asked(System.nanoTime());
        }
    }

    /** Stops ticking and probing; nothing reaches the sink afterwards. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        scheduler.shutdownNow();
        resolver.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Probe probe : probes.values()) {
            probe.close();
        }
    }
}
