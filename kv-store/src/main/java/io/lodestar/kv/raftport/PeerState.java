package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.Connection;

/** The server's record of one connection's handshake, kept as an attribute of the connection. */
final class PeerState {
    private static final String ATTRIBUTE = "lodestar.raft-port.peer";

    private byte[] challenge;
    private volatile String peer;

    /** The state of {@code connection}, created on first use. */
    static PeerState of(Connection connection) {
        PeerState fresh = new PeerState();
        Object existing = connection.setAttributeIfAbsent(ATTRIBUTE, fresh);
        return existing instanceof PeerState state ? state : fresh;
    }

    /** The member this connection proved to be (host:port), or null while it has not. */
    static String authenticatedPeer(Connection connection) {
        return connection != null && connection.getAttribute(ATTRIBUTE) instanceof PeerState state ? state.peer : null;
    }

    /**
     * Whether bolt's {@code connection} (under JRaft's, which keeps its attributes there) has
     * proved the cluster secret: what the port's pipeline asks, below JRaft.
     */
    static boolean proven(com.alipay.remoting.Connection connection) {
        return connection != null
                && connection.getAttribute(ATTRIBUTE) instanceof PeerState state
                && state.peer != null;
    }

    /** A fresh challenge; null when the connection is already authenticated (one handshake each). */
    synchronized byte[] challenge() {
        if (peer != null) {
            return null;
        }
        challenge = HandshakeMacs.nonce();
        return challenge.clone();
    }

    /** The outstanding challenge, which a proof uses up: one attempt per challenge. */
    synchronized byte[] takeChallenge() {
        byte[] taken = challenge;
        challenge = null;
        return taken;
    }

    void authenticated(String member) {
        peer = member;
    }
}
