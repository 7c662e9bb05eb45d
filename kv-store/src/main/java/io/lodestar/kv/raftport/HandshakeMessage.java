package io.lodestar.kv.raftport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One message of the Raft port's handshake, in both directions. It travels as its own fixed
 * layout ({@link #encode}), never through a general-purpose decoder: {@code step | nonce (32) |
 * mac (32) | peer (UTF-8, the rest)}, unused fields zero.
 *
 * <p>The steps: the client says {@link #HELLO}; the server answers a {@link #CHALLENGE} with its
 * nonce; the client sends its {@link #PROOF} (its peer id, its own nonce, and a MAC over both
 * nonces and the peer id); the server answers {@link #ACCEPTED} with its own MAC over the same, or
 * {@link #REFUSED} (nothing MAC'd) and closes the connection. The client proves first, so a
 * stranger who connects never gets a MAC it could test guessed secrets against.
 */
record HandshakeMessage(byte step, byte[] nonce, byte[] mac, String peer) {
    static final byte MALFORMED = 0;
    static final byte HELLO = 1;
    static final byte CHALLENGE = 2;
    static final byte PROOF = 3;
    static final byte ACCEPTED = 4;
    static final byte REFUSED = 5;

    static final int NONCE_LENGTH = 32;
    static final int MAC_LENGTH = 32;
    private static final int MAX_PEER_BYTES = 255;
    private static final byte[] NONE = new byte[NONCE_LENGTH];

    static HandshakeMessage hello() {
        return new HandshakeMessage(HELLO, NONE, NONE, "");
    }

    static HandshakeMessage challenge(byte[] nonce) {
        return new HandshakeMessage(CHALLENGE, nonce, NONE, "");
    }

    static HandshakeMessage proof(String peer, byte[] nonce, byte[] mac) {
        return new HandshakeMessage(PROOF, nonce, mac, peer);
    }

    static HandshakeMessage accepted(byte[] mac) {
        return new HandshakeMessage(ACCEPTED, NONE, mac, "");
    }

    static HandshakeMessage refused() {
        return new HandshakeMessage(REFUSED, NONE, NONE, "");
    }

    byte[] encode() {
        byte[] peerBytes = peer.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + NONCE_LENGTH + MAC_LENGTH + peerBytes.length)
                .put(step)
                .put(nonce)
                .put(mac)
                .put(peerBytes)
                .array();
    }

    /** Any byte string decodes: what is not a well-formed message is {@link #MALFORMED}. */
    static HandshakeMessage decode(byte[] bytes) {
        int fixed = 1 + NONCE_LENGTH + MAC_LENGTH;
        if (bytes == null || bytes.length < fixed || bytes.length > fixed + MAX_PEER_BYTES) {
            return new HandshakeMessage(MALFORMED, NONE, NONE, "");
        }
        return new HandshakeMessage(
                bytes[0],
                Arrays.copyOfRange(bytes, 1, 1 + NONCE_LENGTH),
                Arrays.copyOfRange(bytes, 1 + NONCE_LENGTH, fixed),
                new String(bytes, fixed, bytes.length - fixed, StandardCharsets.UTF_8));
    }
}
