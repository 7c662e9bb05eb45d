package io.lodestar.kv.raftport;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The handshake's MACs: HMAC-SHA256 under the cluster secret over a label, the server's nonce,
 * the client's nonce and the client's peer id. The label tells the two directions apart (and
 * both from the node-to-node channel's frames), so neither proof can be passed off as the other.
 */
final class HandshakeMacs {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] CLIENT = "lodestar raft-port client proof\0".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SERVER = "lodestar raft-port server proof\0".getBytes(StandardCharsets.UTF_8);

    private final SecretKeySpec key;

    HandshakeMacs(byte[] clusterSecret) {
        this.key = new SecretKeySpec(clusterSecret, "HmacSHA256");
    }

    static byte[] nonce() {
        byte[] nonce = new byte[HandshakeMessage.NONCE_LENGTH];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    byte[] clientProof(byte[] serverNonce, byte[] clientNonce, String peer) {
        return mac(CLIENT, serverNonce, clientNonce, peer);
    }

    byte[] serverProof(byte[] serverNonce, byte[] clientNonce, String peer) {
        return mac(SERVER, serverNonce, clientNonce, peer);
    }

    /** Compares in constant time. */
    static boolean same(byte[] expected, byte[] actual) {
        return MessageDigest.isEqual(expected, actual);
    }

    private byte[] mac(byte[] label, byte[] serverNonce, byte[] clientNonce, String peer) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(label);
            mac.update(serverNonce);
            mac.update(clientNonce);
            return mac.doFinal(peer.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
