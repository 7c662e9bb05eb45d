package io.lodestar.naming.health;

import io.lodestar.naming.PersistentInstance;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link HealthChecker} over the registry's persistent instances: the probe targets are
 * the stored instances with their cluster's checker settings (re-read at most once per {@code
 * refresh}, and only when the store's change feed says they may have changed: a tick costs no
 * store scan, and an idle registry none at all, even when deleted instances' tombstones make a
 * scan slow), and a flip is written through Raft with {@link
 * NamingService#setPersistentHealth} (idempotent: a repeated flip writes nothing). The checker
 * probes only while {@code isLeader} holds, so one node probes and the group agrees on the result,
 * and only addresses inside its {@link ProbeScope}: every member should be given the same one.
 */
public final class PersistentHealthChecks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentHealthChecks.class);
    private static final char SEP = '\u0000';

    private final NamingService naming;
    private final Duration refresh;
    private final Duration probeInterval;
    private final ProbeScope scope;
    private final HealthChecker checker;
    private volatile List<ProbeTarget> targets = List.of();
    private volatile long readAtNanos;
    private volatile long readVersion = -1;
    private final AtomicLong reads = new AtomicLong();

    private PersistentHealthChecks(
            NamingService naming,
            BooleanSupplier isLeader,
            ProbeScope scope,
            Duration refresh,
            Duration tick,
            Duration probeInterval) {
        this.naming = naming;
        this.refresh = refresh;
        this.probeInterval = probeInterval;
        this.scope = scope;
        this.checker = new HealthChecker(
                this::current, this::flip, isLeader, scope, tick, HealthChecker.DEFAULT_MAX_IN_FLIGHT);
    }

    /**
     * Starts probing inside {@code scope} every {@value ProbeSettings#DEFAULT_INTERVAL_MS} ms with the
     * checker's default tick, re-reading the instances at most once a second, when they changed.
     */
    public static PersistentHealthChecks start(NamingService naming, BooleanSupplier isLeader, ProbeScope scope) {
        return start(
                naming,
                isLeader,
                scope,
                Duration.ofSeconds(1),
                HealthChecker.DEFAULT_TICK,
                Duration.ofMillis(ProbeSettings.DEFAULT_INTERVAL_MS));
    }

    public static PersistentHealthChecks start(
            NamingService naming,
            BooleanSupplier isLeader,
            ProbeScope scope,
            Duration refresh,
            Duration tick,
            Duration probeInterval) {
        PersistentHealthChecks checks =
                new PersistentHealthChecks(naming, isLeader, scope, refresh, tick, probeInterval);
        checks.checker.start();
        return checks;
    }

    private Collection<ProbeTarget> current() {
        long now = System.nanoTime();
        long version = naming.persistentVersion(); // before the scan: a change during it reads again
        if (version != readVersion && now - readAtNanos >= refresh.toNanos()) {
            reads.incrementAndGet();
            List<ProbeTarget> fresh = new ArrayList<>();
            for (PersistentInstance p : naming.persistentInstances()) {
                Instance i = p.instance();
                ProbeSettings settings = probeSettings(p.healthCheck());
                fresh.add(new ProbeTarget(
                        idOf(p.service(), i),
                        i.ip(),
                        i.port(),
                        i.healthy(),
                        settings.withTiming(
                                settings.timeout().compareTo(probeInterval) < 0 ? settings.timeout() : probeInterval,
                                probeInterval)));
            }
            targets = fresh;
            readAtNanos = now;
            readVersion = version;
        }
        return targets;
    }

    /** How often the instances were read from the store (for tests). */
    long targetReads() {
        return reads.get();
    }

    /** Probes started so far (for metrics and tests). */
    public long probesStarted() {
        return checker.probesStarted();
    }

    /** Probes not made so far because the address was outside the scope (for metrics and tests). */
    public long probesRefused() {
        return checker.probesRefused();
    }

    /** The addresses probes may go to. */
    public ProbeScope scope() {
        return scope;
    }

    /**
     * Why the persistent instance {@code i} of {@code service}, in a cluster probed as {@code
     * cluster} says, is not probed; empty when it is. Any node answers for an IP literal (every
     * member is given the same scope); for a host name only the leader knows, from its last probe.
     */
    public Optional<String> notProbedBecause(ServiceKey service, Instance i, HealthCheckSettings cluster) {
        if (cluster.type() == CheckerType.NONE) {
            return Optional.of("its cluster's health checker is NONE: health is set by hand");
        }
        String refusal = checker.refusal(idOf(service, i));
        return Optional.ofNullable(refusal != null ? refusal : scope.refusal(i.ip()));
    }

    private void flip(String id, boolean healthy) {
        String[] f = id.split(String.valueOf(SEP), -1);
        ServiceKey service = new ServiceKey(f[0], f[1], f[2]);
        naming.setPersistentHealth(service, f[3], f[4], Integer.parseInt(f[5]), healthy)
                .whenComplete((changed, error) -> {
                    if (error != null) {
                        LOG.warn(
                                "could not mark {}:{} in {} {}: {}",
                                f[4],
                                f[5],
                                service.groupedName(),
                                healthy ? "healthy" : "unhealthy",
                                error.toString()); // asked again after a few intervals
                    } else if (changed) {
                        LOG.info(
                                "{}:{} in {} (cluster {}) is now {}",
                                f[4],
                                f[5],
                                service.groupedName(),
                                f[3],
                                healthy ? "healthy" : "unhealthy");
                        readVersion = -1; // the next tick sees the stored flag
                        readAtNanos = 0;
                    }
                });
    }

    static String idOf(ServiceKey service, Instance i) {
        return String.join(
                String.valueOf(SEP),
                service.namespace(),
                service.group(),
                service.service(),
                i.cluster(),
                i.ip(),
                Integer.toString(i.port()));
    }

    /** The checker's form of a cluster's settings: same type, port and path; "2xx" (any success) or explicit statuses. */
    static ProbeSettings probeSettings(HealthCheckSettings s) {
        if (s.type() == CheckerType.NONE) {
            return ProbeSettings.NONE;
        }
        ProbeSettings p = s.type() == CheckerType.HTTP ? ProbeSettings.http(s.httpPath()) : ProbeSettings.tcp();
        return p.withPort(s.useInstancePort() ? 0 : s.checkPort())
                .withExpectedStatuses(expectedStatuses(s.expectedCodes()));
    }

    private static Set<Integer> expectedStatuses(String codes) {
        if (codes.equalsIgnoreCase("2xx")) {
            return Set.of();
        }
        Set<Integer> out = new HashSet<>();
        for (String token : codes.toLowerCase(Locale.ROOT).split(",")) {
            if (token.endsWith("xx")) {
                int base = (token.charAt(0) - '0') * 100;
                for (int c = base; c < base + 100; c++) {
                    out.add(c);
                }
            } else {
                out.add(Integer.parseInt(token));
            }
        }
        return out;
    }

    @Override
    public void close() {
        checker.close();
    }
}
