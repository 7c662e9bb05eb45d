package io.lodestar.naming.distro;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.ephemeral.ServiceCopy;
import io.lodestar.naming.ephemeral.ServiceSnapshot;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class Distro implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Distro.class);
    static final String WRITE = "naming.distro.write";
    static final String SYNC = "naming.distro.sync";
    static final String VERIFY = "naming.distro.verify";
    static final String ALL = "naming.distro.all";
    private static final ThreadLocal<Boolean> INSTALLING = ThreadLocal.withInitial(() -> false);
    private static final long NOT_READY_RETRY_MS = 100;

    /** Timing of the protocol. */
    public record Options(long syncDelayMs, long verifyIntervalMs, long requestTimeoutMs, long initialLoadTimeoutMs) {
        public static final Options DEFAULT = new Options(100, 5_000, 3_000, 15_000);
    }

    private final PeerChannel channel;
    private final DistroRing ring;
    private final EphemeralRegistry registry;
    private final LocalWrites local;
    private final Options options;
    private final Set<ServiceKey> dirty = ConcurrentHashMap.newKeySet();
    /** A sync is scheduled: set by the first change after a quiet spell, cleared by the sync that finds none left. */
    private final AtomicBoolean syncArmed = new AtomicBoolean();

    private final Set<ServiceKey> ownedElsewhere = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "naming-distro");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean loaded;

    public Distro(
            PeerChannel channel, DistroRing ring, EphemeralRegistry registry, LocalWrites local, Options options) {
        this.channel = channel;
        this.ring = ring;
        this.registry = registry;
        this.local = local;
        this.options = options;
    }

    /** Answers peers' messages, starts syncing and verifying, and starts copying a peer's snapshots. */
    public Distro start() {
        channel.handle(WRITE, (from, body) -> onWrite(body));
        channel.handle(SYNC, (from, body) -> {
            DistroCodec.decode(body, in -> {
                DistroCodec.readCopies(in).forEach(this::merge);
                for (ServiceKey gone : DistroCodec.readKeys(in)) {
                    // a member that wrongly thinks it owns a service must not make the others forget it
                    if (ring.owner(gone).equals(from)) {
                        drop(gone);
                    }
                }
                return null;
            });
            return CompletableFuture.completedFuture(new byte[0]);
        });
        channel.handle(VERIFY, (from, body) -> CompletableFuture.completedFuture(onVerify(from, body)));
        channel.handle(
                ALL,
                (from, body) -> CompletableFuture.completedFuture(
                        DistroCodec.encode(out -> DistroCodec.writeCopies(out, allCopies()))));
        timer.scheduleWithFixedDelay(
                this::verifySafely, options.verifyIntervalMs(), options.verifyIntervalMs(), TimeUnit.MILLISECONDS);
        // here, not on the timer: a node without peers must count as loaded (and age its instances) at once
        loadFromPeers(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.initialLoadTimeoutMs()));
        return this;
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
        return loaded;
    }

    // ------------------------------------------------------------------ writes

    /**
     * Applies {@code write} on the service's owner: here if this node owns it, else forwarded (and
     * applied here if the owner cannot be reached). Completes as {@link LocalWrites#applyLocally}.
     *
     * <p>While this node is still copying its peers' instances ({@link #loaded()} false) it holds
     * only part of them, and a write applied to that part could be lost (a deregistration of an
     * instance not copied yet finds nothing to remove). So meanwhile it owns nothing: every write
     * goes to the owner among its peers, and if that fails the write fails ({@link
     * StoreUnavailableException}, a 503 the client retries on another server) rather than being
     * applied here.
     */
    public CompletableFuture<BeatResult> write(EphemeralWrite write) {
        boolean copyWhole = loaded;
        String owner = copyWhole ? ring.owner(write.service()) : ownerWhileCopying(write.service());
        if (owner.equals(ring.self())) {
            return local.applyLocally(write);
        }
        byte[] body = DistroCodec.encode(out -> EphemeralWrite.write(out, write));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.requestTimeoutMs());
        return forward(owner, body, deadline)
                .handle((answer, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(answerOf(write, answer));
                    }
                    if (notReady(error)) {
                        return CompletableFuture.<BeatResult>failedFuture(new StoreUnavailableException(
                                "the owner " + owner + " of " + write.service().groupedName()
                                        + " is starting and cannot take writes yet; retry"));
                    }
                    if (!copyWhole) {
                        return CompletableFuture.<BeatResult>failedFuture(
                                new StoreUnavailableException("this node is still "
                                        + "copying its peers' ephemeral instances and the service's owner " + owner
                                        + " could not take the write; retry, or send it to another member"));
                    }
                    return toHeir(write, owner, body, deadline, error);
                })
                .thenCompose(f -> f);
    }

    /**
     * A write whose owner could not be reached goes to the member that owns the service once the
     * owner is seen gone: the heir, which ages the instances from then on and so must hear their
     * beats, also while this node still counts the owner live. Applied here if this node is the
     * heir or the heir cannot be reached either.
     */
    private CompletableFuture<BeatResult> toHeir(
            EphemeralWrite write, String owner, byte[] body, long deadline, Throwable ownerError) {
        List<String> rest = ring.live().stream().filter(m -> !m.equals(owner)).toList();
        String heir = DistroRing.ownerAmong(rest, write.service());
        if (heir.equals(ring.self())) {
            LOG.debug(
                    "owner {} of {} unreachable ({}); applying the write here",
                    owner,
                    write.service(),
                    ownerError.toString());
            return local.applyLocally(write);
        }
        return forward(heir, body, deadline)
                .handle((answer, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(answerOf(write, answer));
                    }
                    LOG.debug(
                            "owner {} and heir {} of {} unreachable ({}); applying the write here",
                            owner,
                            heir,
                            write.service(),
                            error.toString());
                    return local.applyLocally(write);
                })
                .thenCompose(f -> f);
    }

    /**
     * Sends a write to {@code owner}, again every {@value #NOT_READY_RETRY_MS} ms while it answers
     * that it cannot take it yet, until {@code deadlineNanos}. Once it has refused, it stays refused
     * unless it takes the write: a retry that goes unanswered (e.g. sent with the last millisecond
     * of the deadline) does not show the owner unreachable, and treating it so would apply the
     * write elsewhere, unknown to the owner.
     */
    private CompletableFuture<byte[]> forward(String owner, byte[] body, long deadlineNanos) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        return channel.send(owner, WRITE, body, Math.max(1, leftMs))
                .handle((answer, error) -> {
                    if (error == null || !notReady(error) || leftMs <= NOT_READY_RETRY_MS) {
                        return error == null
                                ? CompletableFuture.completedFuture(answer)
                                : CompletableFuture.<byte[]>failedFuture(error);
                    }
                    CompletableFuture<byte[]> again = new CompletableFuture<>();
                    try {
                        timer.schedule(
                                () -> forward(owner, body, deadlineNanos).whenComplete((a, e) -> {
                                    if (e == null) {
                                        again.complete(a);
                                    } else {
                                        again.completeExceptionally(notReady(e) ? e : error);
                                    }
                                }),
                                NOT_READY_RETRY_MS,
                                TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException closed) {
                        again.completeExceptionally(error);
                    }
                    return again;
                })
                .thenCompose(f -> f);
    }

    /**
     * Whether the owner answered and refused (no Distro handler yet, or still copying its peers):
     * the peer channel reports an answer it refused as {@link StoreUnavailableException}, and a
     * message it could not deliver or got no answer to as another error.
     */
    private static boolean notReady(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof StoreUnavailableException;
    }

    /** The owner among the peers, whose copy is whole; this node itself only when it has no peers. */
    private String ownerWhileCopying(ServiceKey service) {
        List<String> peers = ring.peers();
        return peers.isEmpty() ? ring.owner(service) : DistroRing.ownerAmong(peers, service);
    }

    private CompletableFuture<byte[]> onWrite(byte[] body) {
        if (!loaded) { // the sender, which holds a whole copy, applies the write itself
            return CompletableFuture.failedFuture(
                    new StoreUnavailableException("still copying the peers' ephemeral instances"));
        }
        EphemeralWrite write = DistroCodec.decode(body, EphemeralWrite::read);
        return local.applyLocally(write).handle((result, error) -> {
            Throwable cause =
                    error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            Optional<ServiceCopy> copy = registry.copy(write.service());
            return DistroCodec.encode(out -> {
                if (cause == null) {
                    out.writeByte(result != null && result.status() == BeatResult.Status.UNKNOWN ? 1 : 0);
                    out.writeLong(result == null ? 0 : result.clientBeatIntervalMs());
                } else if (cause instanceof InvalidRequestException invalid) {
                    out.writeByte(2);
                    out.writeString(invalid.field());
                    out.writeString(invalid.getMessage());
                } else if (cause instanceof InstanceNotFoundException notFound) {
                    out.writeByte(3);
                    DistroCodec.writeAddress(out, notFound.address());
                } else {
                    out.writeByte(4);
                    out.writeString(String.valueOf(cause.getMessage()));
                }
                DistroCodec.writeCopies(out, copy.map(List::of).orElse(List.of()));
                DistroCodec.writeKeys(out, copy.isPresent() ? List.of() : List.of(write.service()));
            });
        });
    }

    private BeatResult answerOf(EphemeralWrite write, byte[] answer) {
        return DistroCodec.decode(answer, in -> {
            byte status = in.readByte();
            RuntimeException failure = null;
            BeatResult result = null;
            switch (status) {
                case 0, 1 -> {
                    long interval = in.readLong();
                    result = write instanceof EphemeralWrite.Beat
                            ? new BeatResult(status == 0 ? BeatResult.Status.OK : BeatResult.Status.UNKNOWN, interval)
                            : null;
                }
                case 2 -> failure = new InvalidRequestException(in.readString("field"), in.readString("message"));
                case 3 -> failure = new InstanceNotFoundException(write.service(), DistroCodec.readAddress(in));
                default ->
                    failure = new StoreUnavailableException(
                            "the service's owner failed the write: " + in.readString("message"));
            }
            DistroCodec.readCopies(in).forEach(this::merge);
            DistroCodec.readKeys(in).forEach(this::drop);
            if (failure != null) {
                throw failure;
            }
            return result;
        });
    }

    // ------------------------------------------------------------------ replication

    /**
     * The registry changed {@code service}: queued for the live peers, unless the change was a copy
     * from one or there is no live peer (verification brings a peer that comes back up to date, as
     * it does when a sync is lost). Changes are sent in batches, {@code syncDelayMs} after the first
     * of a batch; no sync runs while nothing changes, so an idle node's timer sleeps, and a
     * standalone node never wakes it.
     */
    public void changed(ServiceKey service) {
        if (INSTALLING.get() || !hasLivePeer()) {
            return;
        }
        dirty.add(service);
        if (!syncArmed.get() && syncArmed.compareAndSet(false, true)) {
            scheduleSync();
        }
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

    /** Merges a peer's copy of a service into this node's. */
    private void merge(ServiceCopy copy) {
        INSTALLING.set(true);
        try {
            registry.merge(copy);
        } finally {
            INSTALLING.set(false);
        }
    }

    /** Forgets a service its owner no longer has. */
    private void drop(ServiceKey service) {
        INSTALLING.set(true);
        try {
            registry.drop(service);
        } finally {
            INSTALLING.set(false);
        }
    }

    private List<ServiceCopy> allCopies() {
        List<ServiceCopy> all = new ArrayList<>();
        for (ServiceKey s : registry.services()) {
            registry.copy(s).ifPresent(all::add);
        }
        return all;
    }

    private void syncSafely() {
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
    private void send(List<String> peers, List<ServiceKey> services) {
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
            channel.send(peer, SYNC, body, options.requestTimeoutMs()).whenComplete((ok, error) -> {
                if (error != null) {
                    LOG.debug("sync to {} failed: {}", peer, error.toString());
                }
            });
        }
    }

    // ------------------------------------------------------------------ verification

    private void verifySafely() {
        if (!loaded) {
            return; // a partial copy would tell the peers to forget the services it lacks
        }
        try {
            List<String> live = ring.live();
            String self = ring.self();
            if (live.stream().allMatch(self::equals)) {
                return; // no one to compare with: skip the checksums of every owned service
            }
            Map<ServiceKey, String> owned = new HashMap<>();
            for (ServiceKey s : registry.services()) {
                if (DistroRing.ownerAmong(live, s).equals(self)) {
                    registry.snapshot(s).ifPresent(snap -> owned.put(s, snap.checksum()));
                }
            }
            byte[] body = DistroCodec.encode(out -> {
                DistroCodec.writeChecksums(out, owned);
                DistroCodec.writeMembers(out, live);
            });
            for (String peer : live) {
                if (peer.equals(self)) {
                    continue;
                }
                channel.send(peer, VERIFY, body, options.requestTimeoutMs())
                        .thenAccept(answer -> {
                            send(List.of(peer), DistroCodec.decode(answer, DistroCodec::readKeys));
                        })
                        .exceptionally(error -> {
                            LOG.debug("verify with {} failed: {}", peer, error.toString());
                            return null;
                        });
            }
        } catch (RuntimeException e) {
            LOG.warn("Distro verification failed; the next one retries", e);
        }
    }

    /**
     * Compares {@code from}'s services with this node's copies: answers with the keys of those this
     * node lacks or holds differently (to be sent and merged here), and sends {@code from} its own
     * copy of those it holds differently, since it may hold changes {@code from} lacks (made here
     * while this node took itself for the owner, e.g. while {@code from} was restarting, or because
     * {@code from} could not be reached).
     *
     * <p>Drops the services {@code from} no longer has, but only if both members' views of the live
     * members make {@code from} their owner: while they disagree (one has seen a member die, the
     * other not yet), a sender leaves out a service it does not think it owns, and that absence
     * says nothing.
     */
    private byte[] onVerify(String from, byte[] body) {
        Map<ServiceKey, String> theirs = new HashMap<>();
        List<String> theirLive = DistroCodec.decode(body, in -> {
            theirs.putAll(DistroCodec.readChecksums(in));
            return DistroCodec.readMembers(in);
        });
        List<ServiceKey> differ = new ArrayList<>();
        List<ServiceKey> heldDifferently = new ArrayList<>();
        for (Map.Entry<ServiceKey, String> e : theirs.entrySet()) {
            Optional<ServiceSnapshot> mine = registry.snapshot(e.getKey());
            if (mine.isEmpty() || !mine.get().checksum().equals(e.getValue())) {
                differ.add(e.getKey());
                mine.ifPresent(m -> heldDifferently.add(e.getKey()));
            }
        }
        if (theirLive.contains(from)) { // as a sender always counts itself live; else the list says nothing
            for (ServiceKey s : registry.services()) {
                if (!theirs.containsKey(s)
                        && ring.owner(s).equals(from)
                        && DistroRing.ownerAmong(theirLive, s).equals(from)) {
                    drop(s);
                }
            }
        }
        send(List.of(from), heldDifferently); // both ways: each side may hold changes the other lacks
        return DistroCodec.encode(out -> DistroCodec.writeKeys(out, differ));
    }

    // ------------------------------------------------------------------ start and expiry

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
            timer.schedule(() -> loadFromPeers(deadlineNanos), 500, TimeUnit.MILLISECONDS);
            return;
        }
        String peer = peers.get(index);
        channel.send(peer, ALL, new byte[0], options.requestTimeoutMs()).whenComplete((answer, error) -> {
            if (error != null) {
                tryLoad(peers, index + 1, deadlineNanos);
                return;
            }
            List<ServiceCopy> copies = DistroCodec.decode(answer, DistroCodec::readCopies);
            copies.forEach(this::merge);
            LOG.info("copied {} services' ephemeral instances from {}", copies.size(), peer);
            loaded = true;
        });
    }

    /**
     * Whether this node ages {@code service}'s instances: only its owner does, once it holds a
     * whole copy. When ownership moves here from another member, the instances first get a fresh
     * beat time and this pass skips them: their clients' beats went to the previous owner.
     */
    public boolean responsible(ServiceKey service) {
        if (!loaded || !ring.ownsLocally(service)) { // a partial copy is not aged: see write()
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
        syncSafely();
    }
}
