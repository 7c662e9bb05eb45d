package io.lodestar.naming.distro;

import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.model.ServiceKey;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The AP protocol that keeps every member's copy of the ephemeral instances: Distro, as Nacos
 * calls it.
 *
 * <ul>
 *   <li><b>Ownership.</b> Each service has one owner among the live members ({@link DistroRing}).
 *       A write to a service this node does not own is forwarded to the owner ({@link #write}),
 *       which applies it and answers with its copy of the service, merged here at once so a read
 *       on this node sees the write. If the owner cannot be reached the write is applied here
 *       instead: registration never stops (the copies are reconciled later). An owner that
 *       answers but cannot take writes yet (starting: its handlers not in place, or still copying
 *       its peers) is asked again until the request timeout, and then the write fails with a
 *       retriable {@link StoreUnavailableException}: applied here, it would be a change the owner
 *       does not know of, which the owner's first verification would make every peer forget.</li>
 *   <li><b>Versions.</b> Every change of an instance, and every removal, is stamped with a
 *       hybrid-logical-clock version, and copies merge address by address, the later change
 *       winning ({@link ServiceCopy}). So changes made on two members at once (both taking
 *       themselves for the owner while one restarts, the two sides of a partition, a member
 *       standing in for an unreachable owner) are all kept where they touch different instances,
 *       and a removal is not undone by an older copy.</li>
 *   <li><b>Replication.</b> A node that changes a service's instances itself (a write, an expiry)
 *       sends its copy of the service to every live peer, batched: a batch goes {@code syncDelay}
 *       after its first change. A peer merges it, and never sends it on.</li>
 *   <li><b>Verification.</b> Every {@code verifyInterval} a node sends each peer the checksums of
 *       the services it owns; the peer answers with those it lacks or holds differently, which are
 *       then sent, and sends back its own copy of those it holds differently: both sides merge. A
 *       peer also drops the services that the sender no longer has and owns by both members' views
 *       of who is live. This repairs lost syncs and converges the two sides of a healed
 *       partition.</li>
 *   <li><b>Start.</b> A node merges every copy a live peer holds before {@link #loaded()}.</li>
 *   <li><b>Expiry</b> runs only on the owner ({@link #responsible}); a node that has just become a
 *       service's owner first grants its instances a fresh beat time, since their beats went to the
 *       previous owner.</li>
 * </ul>
 *
 * <p>Messages ride the store's {@link PeerChannel}: authenticated by the cluster secret. A
 * standalone node (one member) owns everything and sends nothing.
 *
 * <p>This class wires the protocol's parts, which share its timer thread: {@link DistroWrites},
 * {@link DistroSync}, {@link DistroVerification} and {@link StartupLoad}.
 */
public final class Distro implements AutoCloseable {
    static final String WRITE = "naming.distro.write";
    static final String SYNC = "naming.distro.sync";
    static final String VERIFY = "naming.distro.verify";
    static final String ALL = "naming.distro.all";

    /** Timing of the protocol. */
    public record Options(long syncDelayMs, long verifyIntervalMs, long requestTimeoutMs, long initialLoadTimeoutMs) {
        public static final Options DEFAULT = new Options(100, 5_000, 3_000, 15_000);
    }

    private final DistroRing ring;
    private final PeerChannel channel;
    private final EphemeralRegistry registry;
    private final Options options;
    private final Set<ServiceKey> ownedElsewhere = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "naming-distro");
        t.setDaemon(true);
        return t;
    });
    private final StartupLoad load;
    private final DistroWrites writes;
    private final DistroSync sync;
    private final DistroVerification verification;

    public Distro(
            PeerChannel channel, DistroRing ring, EphemeralRegistry registry, LocalWrites local, Options options) {
        this.channel = channel;
        this.ring = ring;
        this.registry = registry;
        this.options = options;
        PeerCopies copies = new PeerCopies(registry);
        this.load = new StartupLoad(channel, ring, registry, copies, timer, options);
        this.writes = new DistroWrites(channel, ring, registry, local, copies, load, timer, options);
        this.sync = new DistroSync(channel, ring, registry, copies, timer, options);
        this.verification = new DistroVerification(channel, ring, registry, copies, sync, load::loaded, options);
    }

    /** Answers peers' messages, starts syncing and verifying, and starts copying a peer's snapshots. */
    public Distro start() {
        channel.handle(WRITE, (from, body) -> writes.onWrite(body));
        channel.handle(SYNC, sync::onSync);
        channel.handle(VERIFY, (from, body) -> CompletableFuture.completedFuture(verification.onVerify(from, body)));
        channel.handle(ALL, (from, body) -> CompletableFuture.completedFuture(load.onAll()));
        timer.scheduleWithFixedDelay(
                verification::verifySafely,
                options.verifyIntervalMs(),
                options.verifyIntervalMs(),
                TimeUnit.MILLISECONDS);
        // here, not on the timer: a node without peers must count as loaded (and age its instances) at once
        load.start();
        return this;
    }

    /**
     * The last checksum comparison with a peer: when ({@code atMillis}, wall clock), how many
     * services this node owned and sent, how many the peer held differently ({@code -1} when the
     * peer did not answer, {@code error} saying why).
     */
    public record PeerVerify(long atMillis, int servicesSent, int differing, String error) {}

    /** The last verification with each peer, by its Raft address; empty before the first round. */
    public Map<String, PeerVerify> lastVerify() {
        return verification.lastVerify();
    }

    /** This member's address, as holders are named ({@link EphemeralWrite.Register}). */
    public String self() {
        return ring.self();
    }

    /** Whether {@code member} is this node or a member this node can reach. */
    public boolean live(String member) {
        return ring.live().contains(member);
    }

    /** True once this node holds a copy of a live peer's services (at once when it has no live peer). */
    public boolean loaded() {
        return load.loaded();
    }

    /**
     * Applies {@code write} on the service's owner: here if this node owns it, else forwarded (and
     * applied here if the owner cannot be reached). Completes as {@link LocalWrites#applyLocally}.
     * While this node is still copying its peers' instances it owns nothing, and a write the owner
     * cannot take fails with a retriable {@link StoreUnavailableException} (see {@link DistroWrites}).
     */
    public CompletableFuture<BeatResult> write(EphemeralWrite write) {
        return writes.write(write);
    }

    /**
     * The registry changed {@code service}: queued for the live peers, unless the change was a copy
     * from one or there is no live peer (verification brings a peer that comes back up to date, as
     * it does when a sync is lost). Changes are sent in batches, {@code syncDelayMs} after the first
     * of a batch; no sync runs while nothing changes, so an idle node's timer sleeps, and a
     * standalone node never wakes it.
     */
    public void changed(ServiceKey service) {
        sync.changed(service);
    }

    /**
     * Whether this node ages {@code service}'s instances: only its owner does, once it holds a
     * whole copy. When ownership moves here from another member, the instances first get a fresh
     * beat time and this pass skips them: their clients' beats went to the previous owner.
     */
    public boolean responsible(ServiceKey service) {
        if (!load.loaded() || !ring.ownsLocally(service)) { // a partial copy is not aged: see DistroWrites
            ownedElsewhere.add(service);
            return false;
        }
        if (ownedElsewhere.remove(service)) {
            registry.apply(service, new Mutation.Grace());
            return false;
        }
        return true;
    }

    /** Sends the services changed since the last sync, then stops. */
    @Override
    public void close() {
        timer.shutdownNow();
        sync.syncSafely();
    }
}
