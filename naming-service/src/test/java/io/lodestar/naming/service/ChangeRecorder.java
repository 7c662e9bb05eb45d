package io.lodestar.naming.service;

import io.lodestar.naming.NamingChangeListener;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Records change notifications and the threads they arrived on; waits have deadlines. */
final class ChangeRecorder implements NamingChangeListener {
    private final List<ServiceKey> seen = new ArrayList<>();
    private final List<String> threads = new ArrayList<>();

    @Override
    public synchronized void onServiceChanged(ServiceKey service) {
        seen.add(service);
        threads.add(Thread.currentThread().getName());
        notifyAll();
    }

    /** Forgets what was heard so far. */
    synchronized void clear() {
        seen.clear();
        threads.clear();
    }

    /** Waits (10 s at most) until {@code service} was reported since the last {@link #clear()}. */
    synchronized void awaitChange(ServiceKey service) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!seen.contains(service)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no change notification for " + service + "; heard " + seen);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    synchronized List<String> threads() {
        return List.copyOf(threads);
    }
}
