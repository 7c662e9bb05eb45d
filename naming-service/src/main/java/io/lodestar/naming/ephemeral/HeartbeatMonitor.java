package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.ServiceKey;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an expiry pass ({@link Mutation.Expire}) over the ephemeral services every {@link
 * ExpiryRules#checkIntervalMs()}, on its own daemon thread, once {@link #start() started}.
 *
 * <p>Only services {@code responsible} accepts are checked: today every service; under Distro
 * only the ones this node owns (a replica must not expire what its owner keeps alive).
 * {@code liveMembers} says which members are alive, for instances a member holds for a connection.
 */
public final class HeartbeatMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatMonitor.class);

    private final EphemeralRegistry registry;
    private final Predicate<ServiceKey> responsible;
    private final Predicate<String> liveMembers;
    private final ScheduledExecutorService timer;

    public HeartbeatMonitor(
            EphemeralRegistry registry, Predicate<ServiceKey> responsible, Predicate<String> liveMembers) {
        this.registry = registry;
        this.responsible = responsible;
        this.liveMembers = liveMembers;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "naming-heartbeat-monitor");
            thread.setDaemon(true);
            return thread;
        });
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    public void start() {
        long interval = registry.rules().checkIntervalMs();
        timer.scheduleWithFixedDelay(this::checkNow, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** One expiry pass over every service this node is responsible for, on the caller's thread. */
    public void checkNow() {
        for (ServiceKey service : registry.services()) {
            if (!responsible.test(service)) {
                continue;
            }
            try {
                registry.apply(service, new Mutation.Expire(liveMembers));
            } catch (RuntimeException e) {
                // one bad service must not stop the others from ageing
                LOG.error("expiry pass failed for {}", service, e);
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
