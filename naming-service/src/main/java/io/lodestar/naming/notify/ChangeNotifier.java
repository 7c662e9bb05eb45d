package io.lodestar.naming.notify;

import io.lodestar.naming.NamingChangeListener;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers "service changed" to {@link NamingChangeListener}s on one notifier thread.
 *
 * <p>{@link #changed} never blocks: it marks the service dirty; the notifier thread drains the
 * dirty set in the order services were first marked and calls every listener for each. A service
 * marked again while it waits is reported once; one marked while it is being reported is reported
 * again afterwards. A listener that throws is logged and the others still hear of the change.
 */
public final class ChangeNotifier implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeNotifier.class);

    private final List<NamingChangeListener> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "naming-notifier");
        t.setDaemon(true);
        return t;
    });
    private final Object lock = new Object();
    private LinkedHashSet<ServiceKey> dirty = new LinkedHashSet<>();
    private boolean scheduled;
    private volatile boolean closed;

    /** Adds {@code listener}; close the result to remove it. */
    public AutoCloseable subscribe(NamingChangeListener listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Reports that {@code service} changed; any thread, never blocks. Ignored after {@link #close()}. */
    public void changed(ServiceKey service) {
        if (closed) {
            return;
        }
        synchronized (lock) {
            dirty.add(service);
            if (scheduled) {
                return;
            }
            scheduled = true;
        }
        try {
            thread.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // closed meanwhile: nobody is listening any more
        }
    }

    private void drain() {
        while (!closed) {
            List<ServiceKey> batch;
            synchronized (lock) {
                if (dirty.isEmpty()) {
                    scheduled = false;
                    return;
                }
                batch = new ArrayList<>(dirty);
                dirty = new LinkedHashSet<>();
            }
            for (ServiceKey service : batch) {
                for (NamingChangeListener l : listeners) {
                    try {
                        l.onServiceChanged(service);
                    } catch (RuntimeException | Error e) {
                        // an Error too: escaping would leave 'scheduled' set and every later change unheard
                        LOG.error("naming change listener {} failed for {}", l, service, e);
                    }
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        listeners.clear();
        thread.shutdownNow();
    }
}
