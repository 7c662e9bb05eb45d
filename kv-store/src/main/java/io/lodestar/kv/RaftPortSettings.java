package io.lodestar.kv;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * How the Raft port treats a connection before it has proved the cluster secret. Anyone who can
 * reach the port can open one, so until the handshake succeeds a connection is one of a bounded
 * few, may send only small frames, and is closed when the deadline passes.
 *
 * @param unprovenConnections connections not yet proved, on the whole node; one more is closed at once
 * @param unprovenPerAddress connections not yet proved from one address
 * @param handshakeDeadline how long a connection has to complete the handshake
 * @param tls TLS on the port, or null for none
 * @param refusals told the limit's name ({@link #UNPROVEN_LIMIT}, {@link #UNPROVEN_PER_ADDRESS_LIMIT})
 *     each time one closes a connection, for the node's metrics
 */
public record RaftPortSettings(
        int unprovenConnections,
        int unprovenPerAddress,
        Duration handshakeDeadline,
        PeerTls tls,
        Consumer<String> refusals) {
    public static final String UNPROVEN_LIMIT = "raft.unproven-connections";
    public static final String UNPROVEN_PER_ADDRESS_LIMIT = "raft.unproven-connections-per-address";

    /**
     * Members hold one or two connections to each other and prove them within a connect timeout;
     * a command line tool one more. These leave room for every member restarting at once, many
     * times over, while a stranger cannot hold more than a few.
     */
    public static final RaftPortSettings DEFAULT =
            new RaftPortSettings(256, 16, Duration.ofSeconds(10), null, limit -> {});

    public RaftPortSettings {
        if (unprovenConnections < 1 || unprovenPerAddress < 1) {
            throw new IllegalArgumentException("the Raft port must admit at least one connection to prove itself");
        }
        if (handshakeDeadline.isNegative() || handshakeDeadline.isZero()) {
            throw new IllegalArgumentException("the handshake deadline must be positive: " + handshakeDeadline);
        }
    }

    /** These settings with TLS on the port. */
    public RaftPortSettings withTls(PeerTls peerTls) {
        return new RaftPortSettings(unprovenConnections, unprovenPerAddress, handshakeDeadline, peerTls, refusals);
    }
}
