package io.lodestar.naming.distro;

import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.ServiceSnapshot;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verification: every verify interval (on Distro's timer) this node sends each live peer the
 * checksums of the services it owns, and answers a peer's checksums; both sides then send each
 * other what differs. Repairs lost syncs and converges the two sides of a healed partition.
 */
final class DistroVerification {
    private static final Logger LOG = LoggerFactory.getLogger(Distro.class);

    private final PeerChannel channel;
    private final DistroRing ring;
    private final EphemeralRegistry registry;
    private final PeerCopies copies;
    private final DistroSync sync;
    private final BooleanSupplier loaded;
    private final Distro.Options options;
    /** The last verification with each peer, for operators. */
    private final Map<String, Distro.PeerVerify> lastVerify = new java.util.concurrent.ConcurrentHashMap<>();

    DistroVerification(
            PeerChannel channel,
            DistroRing ring,
            EphemeralRegistry registry,
            PeerCopies copies,
            DistroSync sync,
            BooleanSupplier loaded,
            Distro.Options options) {
        this.channel = channel;
        this.ring = ring;
        this.registry = registry;
        this.copies = copies;
        this.sync = sync;
        this.loaded = loaded;
        this.options = options;
    }

    /** The last verification round's outcome with each peer it reached or tried. */
    Map<String, Distro.PeerVerify> lastVerify() {
        return Map.copyOf(lastVerify);
    }

    /** One verification round with every live peer; never throws. */
    void verifySafely() {
        if (!loaded.getAsBoolean()) {
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
                channel.send(peer, Distro.VERIFY, body, options.requestTimeoutMs())
                        .thenAccept(answer -> {
                            List<ServiceKey> differ = DistroCodec.decode(answer, DistroCodec::readKeys);
                            lastVerify.put(
                                    peer,
                                    new Distro.PeerVerify(
                                            System.currentTimeMillis(), owned.size(), differ.size(), null));
                            sync.send(List.of(peer), differ);
                        })
                        .exceptionally(error -> {
                            LOG.debug("verify with {} failed: {}", peer, error.toString());
                            lastVerify.put(
                                    peer,
                                    new Distro.PeerVerify(
                                            System.currentTimeMillis(), owned.size(), -1, error.toString()));
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
    byte[] onVerify(String from, byte[] body) {
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
                    copies.drop(s);
                }
            }
        }
        sync.send(List.of(from), heldDifferently); // both ways: each side may hold changes the other lacks
        return DistroCodec.encode(out -> DistroCodec.writeKeys(out, differ));
    }
}
