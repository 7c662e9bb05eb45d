package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.error.RemotingException;

/**
 * The handshake with a peer failed: it refused this node's proof, or could not prove the cluster
 * secret itself. Nothing was sent; the members' secrets most likely differ.
 */
public final class HandshakeRefusedException extends RemotingException {
    private static final long serialVersionUID = 1L;

    HandshakeRefusedException(String message) {
        super(message);
    }
}
