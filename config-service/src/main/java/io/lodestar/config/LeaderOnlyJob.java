package io.lodestar.config;

import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A housekeeping pass run every {@code interval} on a thread of its own (the first after one
 * interval). The pass decides for itself whether to act ({@link #leads}: only the Raft leader
 * acts, so the group does the work once); a failed pass is logged and the next one goes on.
 */
public final class LeaderOnlyJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderOnlyJob.class);

    private final ScheduledExecutorService timer;

    private LeaderOnlyJob(String name, Duration interval, IntSupplier pass) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        long every = interval.toMillis();
        timer.scheduleWithFixedDelay(
                () -> {
                    try {
                        long start = System.nanoTime();
                        int changed = pass.getAsInt();
                        if (changed > 0) {
                            LOG.info(
                                    "{} changed {} entries in {} ms",
                                    name,
                                    changed,
                                    (System.nanoTime() - start) / 1_000_000);
                        }
                    } catch (RuntimeException e) {
                        LOG.warn("{} pass failed; the next pass continues it", name, e);
                    }
                },
                every,
                every,
                TimeUnit.MILLISECONDS);
    }

    /** Runs {@code pass} (answering how many entries it deleted or moved) every {@code interval}, on a thread named {@code name}. */
    public static LeaderOnlyJob every(String name, Duration interval, IntSupplier pass) {
        return new LeaderOnlyJob(name, interval, pass);
    }

    /** Whether this node currently leads the group (as far as it knows). */
    public static boolean leads(KvStore store) {
        ClusterView view = store.cluster();
        return view.leader() != null && view.leader().equals(view.self());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
