package io.lodestar.naming.distro;

import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up load: a starting node copies every service a live peer holds before it counts as
 * {@link #loaded()}, asking its peers in turn until one answers or the initial-load timeout
 * passes; and it answers peers that ask the same of it. Retries run on Distro's timer.
 */
final class StartupLoad {
    private static final Logger LOG = LoggerFactory.getLogger(Distro.class);
    /** Pause after every peer failed to answer, before asking them all again. */
    private static final long ROUND_PAUSE_MS = 500;

    private final PeerChannel channel;
    private final DistroRing ring;
    private final EphemeralRegistry registry;
    private final PeerCopies copies;
    private final ScheduledExecutorService timer;
    private final Distro.Options options;
    private volatile boolean loaded;

    StartupLoad(
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

    /** True once this node holds a copy of a live peer's services (at once when it has no live peer). */
    boolean loaded() {
        return loaded;
    }

    /** Starts copying; on the caller's thread, so that a node without peers counts as loaded at once. */
    void start() {
        loadFromPeers(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.initialLoadTimeoutMs()));
    }

    /** The answer to a starting peer: this node's copy of every service. */
    byte[] onAll() {
        List<ServiceCopy> all = new ArrayList<>();
        for (ServiceKey s : registry.services()) {
            registry.copy(s).ifPresent(all::add);
        }
        return DistroCodec.encode(out -> DistroCodec.writeCopies(out, all));
    }

    private void loadFromPeers(long deadlineNanos) {
        if (loaded) {
            return;
        }
        List<String> peers = ring.peers();
        if (peers.isEmpty() || System.nanoTime() > deadlineNanos) {
            if (!peers.isEmpty()) {
                LOG.warn(
                        "no peer gave its ephemeral instances within {} ms; serving what this node has",
                        options.initialLoadTimeoutMs());
            }
            loaded = true;
            return;
        }
        tryLoad(peers, 0, deadlineNanos);
    }

    private void tryLoad(List<String> peers, int index, long deadlineNanos) {
        if (index >= peers.size()) {
            timer.schedule(() -> loadFromPeers(deadlineNanos), ROUND_PAUSE_MS, TimeUnit.MILLISECONDS);
            return;
        }
        String peer = peers.get(index);
        channel.send(peer, Distro.ALL, new byte[0], options.requestTimeoutMs()).whenComplete((answer, error) -> {
            if (error != null) {
                tryLoad(peers, index + 1, deadlineNanos);
                return;
            }
            List<ServiceCopy> copied = DistroCodec.decode(answer, DistroCodec::readCopies);
            copied.forEach(copies::merge);
            LOG.info("copied {} services' ephemeral instances from {}", copied.size(), peer);
            loaded = true;
        });
    }
}
