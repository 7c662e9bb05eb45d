package io.lodestar.config.push;

import io.lodestar.config.ConfigKey;
import io.lodestar.config.changelog.ConfigChangeLog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One push session's unsent messages and what its client knows: per subscribed key the highest
 * revision it has been told of, the keys whose replay is being read (their live changes are held
 * back meanwhile), and the queue a sender thread drains into the {@link PushSession}.
 *
 * <p>Thread-safety: the {@code ...Locked} methods and the fields they touch are guarded by this
 * object's monitor, which the caller holds; {@link #run} runs on a sender thread and takes it
 * itself. Past {@code maxQueued} messages or held-back changes the session is handed to {@link
 * Owner#drop} on a sender thread.
 */
final class SessionOutbox implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(PushHub.class);

    /** What the outbox reports to the hub that owns it. */
    interface Owner {
        /** The session fell too far behind: close it as too slow. */
        void drop(SessionOutbox outbox, String why);

        /** Sending failed: forget the session and close it. */
        void failed(PushSession transport);
    }

    /** A notice ({@code change} not null) or a subscribe acknowledgement up to {@code revision}. */
    record Outgoing(ConfigChangeLog.Change change, long revision) {}

    final PushSession transport;
    /** Per subscribed key, the highest revision the client knows of (sent, or given by it). */
    final Map<ConfigKey, Long> sent = new HashMap<>();
    /** Keys whose replay is being read: their live changes wait in {@link #heldBack}. */
    final Set<ConfigKey> replaying = new HashSet<>();

    final List<ConfigChangeLog.Change> heldBack = new ArrayList<>();
    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    private final int maxQueued;
    private final Executor senders;
    private final Owner owner;
    private boolean scheduled;
    boolean closed;

    SessionOutbox(PushSession transport, int maxQueued, Executor senders, Owner owner) {
        this.transport = transport;
        this.maxQueued = maxQueued;
        this.senders = senders;
        this.owner = owner;
    }

    /** Queues the change unless the client knows of it already; {@code replayed}: from the log read, not live. */
    void offerLocked(ConfigChangeLog.Change c, boolean replayed) {
        Long known = sent.get(c.key());
        if (known == null) {
            return; // unsubscribed
        }
        if (!replayed && replaying.contains(c.key())) {
            if (heldBack.size() >= maxQueued) {
                closed = true;
                senders.execute(() -> owner.drop(this, heldBack.size() + " held-back changes"));
                return;
            }
            heldBack.add(c);
            return;
        }
        if (c.revision() <= known) {
            return;
        }
        sent.put(c.key(), c.revision());
        enqueueLocked(new Outgoing(c, c.revision()));
    }

    /** Queues an md5-mismatch notice: the client's content is stale whatever revision it had. */
    void forceLocked(ConfigChangeLog.Change c) {
        Long known = sent.get(c.key());
        if (known == null) {
            return;
        }
        sent.put(c.key(), Math.max(known, c.revision()));
        enqueueLocked(new Outgoing(c, c.revision()));
    }

    void enqueueLocked(Outgoing o) {
        if (closed) {
            return;
        }
        if (queue.size() >= maxQueued) {
            closed = true;
            int size = queue.size();
            try {
                senders.execute(() -> owner.drop(this, size + " messages"));
            } catch (RejectedExecutionException e) {
                // shutting down: close() closes it
            }
            return;
        }
        queue.addLast(o);
        if (!scheduled) {
            scheduled = true;
            try {
                senders.execute(this);
            } catch (RejectedExecutionException e) {
                scheduled = false;
            }
        }
    }

    /** Marks the session closed and forgets what it would have sent. */
    void closeLocked() {
        closed = true;
        queue.clear();
        heldBack.clear();
    }

    @Override
    public void run() {
        while (true) {
            Outgoing o;
            synchronized (this) {
                o = closed ? null : queue.pollFirst();
                if (o == null) {
                    scheduled = false;
                    return;
                }
            }
            try {
                if (o.change() != null) {
                    transport.send(o.change());
                } else {
                    transport.subscribed(o.revision());
                }
            } catch (RuntimeException e) {
                LOG.debug("push session {} failed to send; dropping it", transport, e);
                owner.failed(transport);
                return;
            }
        }
    }
}
