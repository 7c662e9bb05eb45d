package io.lodestar.naming.distro;

import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replication: sends this node's own changes to its live peers in batches, and merges the batches
 * peers send. {@link #changed} is called on whichever thread changed the registry; batches are
 * sent on Distro's timer thread.
 */
final class DistroSync {
    private static final Logger LOG = LoggerFactory.getLogger(Distro.class);

    private final PeerChannel channel;
    private final DistroRing ring;
    private final EphemeralRegistry registry;
    private final PeerCopies copies;
    private final ScheduledExecutorService timer;
    private final Distro.Options options;
    private final Set<ServiceKey> dirty = ConcurrentHashMap.newKeySet();
    /** A sync is scheduled: set by the first change after a quiet spell, cleared by the sync that finds none left. */
    private final AtomicBoolean syncArmed = new AtomicBoolean();

    DistroSync(
            PeerChannel channel,
            DistroRing ring,
            EphemeralRegistry registry,
            PeerCopies copies,
            ScheduledExecutorService timer,
            Distro.Options options) {
        this.channel = channel;
        this.ring = ring;
        this.registry = registry;
        this.copies = copies;
        this.timer = timer;
        this.options = options;
    }

    /** See {@link Distro#changed}. */
    void changed(ServiceKey service) {
        if (PeerCopies.installing() || !hasLivePeer()) {
            return;
        }
        dirty.add(service);
        if (!syncArmed.get() && syncArmed.compareAndSet(false, true)) {
            scheduleSync();
        }
    }

    /** Merges a batch {@code from} sent: its copies, and the services it says are gone. */
    CompletableFuture<byte[]> onSync(String from, byte[] body) {
        DistroCodec.decode(body, in -> {
            DistroCodec.readCopies(in).forEach(copies::merge);
            for (ServiceKey gone : DistroCodec.readKeys(in)) {
                // a member that wrongly thinks it owns a service must not make the others forget it
                if (ring.owner(gone).equals(from)) {
                    copies.drop(gone);
                }
            }
            return null;
        });
        return CompletableFuture.completedFuture(new byte[0]);
    }

    /** Whether a live peer may want a sync; true when the member view cannot be read, so the sync decides. */
    private boolean hasLivePeer() {
        try {
            return !ring.peers().isEmpty();
        } catch (RuntimeException e) {
            // the change is made already: its caller must not see this, and the sync catches it
            return true;
        }
    }

    private void scheduleSync() {
        try {
            timer.schedule(this::syncSafely, options.syncDelayMs(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed: nothing is sent any more
        }
    }

    /** Sends the services changed since the last batch; on the timer, and once more at close. */
    void syncSafely() {
        try {
            List<ServiceKey> batch = List.copyOf(dirty);
            dirty.removeAll(batch);
            send(ring.peers(), batch);
        } catch (RuntimeException e) {
            LOG.warn("Distro sync failed; verification repairs it", e);
        } finally {
            syncArmed.set(false);
            // a change after the batch was taken saw the sync armed and left itself to this one
            if (!dirty.isEmpty() && syncArmed.compareAndSet(false, true)) {
                scheduleSync();
            }
        }
    }

    /** Sends this node's copy of {@code services} to {@code peers}, or that a service is gone. */
    void send(List<String> peers, List<ServiceKey> services) {
        if (services.isEmpty() || peers.isEmpty()) {
            return;
        }
        List<ServiceCopy> present = new ArrayList<>();
        List<ServiceKey> gone = new ArrayList<>();
        for (ServiceKey s : services) {
            registry.copy(s).ifPresentOrElse(present::add, () -> gone.add(s));
        }
        byte[] body = DistroCodec.encode(out -> {
            DistroCodec.writeCopies(out, present);
            DistroCodec.writeKeys(out, gone);
        });
        for (String peer : peers) {
            channel.send(peer, Distro.SYNC, body, options.requestTimeoutMs()).whenComplete((ok, error) -> {
                if (error != null) {
                    LOG.debug("sync to {} failed: {}", peer, error.toString());
                }
            });
        }
    }
}
