package io.lodestar.kv.feed;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans applied changes out to in-process listeners without blocking the publisher: each listener
 * has a bounded queue drained on a shared pool; a listener whose queue is full loses its queued
 * events and is told to resync from the first revision it missed. A {@linkplain
 * ChangeListener#direct() direct} listener with nothing queued is called on the publishing thread.
 */
public final class ChangeFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeFeed.class);

    private final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
    private final ExecutorService pool;

    public ChangeFeed() {
        AtomicInteger n = new AtomicInteger();
        pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "change-feed-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Subscribes {@code listener}; at most {@code capacity} undelivered events are held for it. */
    public AutoCloseable subscribe(ChangeListener listener, int capacity) {
        Subscriber s = new Subscriber(listener, capacity);
        subscribers.add(s);
        return () -> subscribers.remove(s);
    }

    /**
     * Called after each commit, in commit order, from one thread at a time; never blocks on a
     * listener, but runs direct listeners' (cheap) reactions.
     */
    public void publish(List<ChangeEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        for (Subscriber s : subscribers) {
            s.offer(events);
        }
    }

    /** Tells every listener to resync, e.g. after the store was replaced by a snapshot. */
    public void resyncAll(long fromRevision) {
        for (Subscriber s : subscribers) {
            s.overflow(fromRevision);
        }
    }

    @Override
    public void close() {
        subscribers.clear();
        pool.shutdownNow();
    }

    private final class Subscriber implements Runnable {
        private final ChangeListener listener;
        private final int capacity;
        private final ArrayDeque<ChangeEvent> queue = new ArrayDeque<>();
        private long resyncFrom = -1;
        private boolean scheduled;

        Subscriber(ChangeListener listener, int capacity) {
            this.listener = listener;
            this.capacity = capacity;
        }

        void offer(List<ChangeEvent> events) {
            List<ChangeEvent> here;
            synchronized (this) {
                if (!enqueue(events)) {
                    return;
                }
                if (!listener.direct() || scheduled || resyncFrom >= 0) {
                    schedule();
                    return;
                }
                // claimed: no pool run starts while this thread delivers
                scheduled = true;
                here = new ArrayList<>(queue);
                queue.clear();
            }
            deliver(here);
            synchronized (this) {
                scheduled = false;
                if (resyncFrom >= 0 || !queue.isEmpty()) {
                    schedule(); // a failure's resync, on a feed thread
                }
            }
        }

        /** Queues what the listener hears of {@code events}; whether it hears any. Holds the lock. */
        private boolean enqueue(List<ChangeEvent> events) {
            boolean heard = false;
            for (ChangeEvent e : events) {
                if (!listener.hears(e.keyspace())) {
                    continue;
                }
                heard = true;
                if (resyncFrom >= 0) {
                    // already behind: the resync covers this event too
                    continue;
                }
                if (queue.size() >= capacity) {
                    resyncFrom =
                            queue.isEmpty() ? e.revision() : queue.peekFirst().revision();
                    queue.clear();
                    continue;
                }
                queue.addLast(e);
            }
            return heard;
        }

        void overflow(long fromRevision) {
            synchronized (this) {
                long first = queue.isEmpty()
                        ? fromRevision
                        : Math.min(fromRevision, queue.peekFirst().revision());
                resyncFrom = resyncFrom < 0 ? first : Math.min(resyncFrom, first);
                queue.clear();
                schedule();
            }
        }

        private void schedule() {
            if (!scheduled) {
                try {
                    pool.execute(this);
                    scheduled = true;
                } catch (RejectedExecutionException e) {
                    // closed: nobody is listening any more
                }
            }
        }

        @Override
        public void run() {
            while (true) {
                long resync;
                List<ChangeEvent> batch;
                synchronized (this) {
                    resync = resyncFrom;
                    resyncFrom = -1;
                    batch = new ArrayList<>(queue);
                    queue.clear();
                    if (resync < 0 && batch.isEmpty()) {
                        scheduled = false;
                        return;
                    }
                }
                if (resync >= 0) {
                    try {
                        listener.onResync(resync);
                    } catch (RuntimeException | Error e) {
                        LOG.error("change listener {} failed to resync from {}", listener, resync, e);
                    }
                }
                deliver(batch);
            }
        }

        private void deliver(List<ChangeEvent> batch) {
            for (ChangeEvent e : batch) {
                try {
                    listener.onChange(e);
                } catch (RuntimeException | Error ex) {
                    // an Error too: letting it escape would leave this listener scheduled
                    // forever and deaf from then on
                    LOG.error(
                            "change listener {} failed at revision {}; it is told to resync",
                            listener,
                            e.revision(),
                            ex);
                    overflow(e.revision());
                    return;
                }
            }
        }
    }
}
