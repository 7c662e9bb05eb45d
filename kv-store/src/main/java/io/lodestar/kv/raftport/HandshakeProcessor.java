package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.Connection;
import com.alipay.sofa.jraft.rpc.RpcContext;
import com.alipay.sofa.jraft.rpc.RpcProcessor;

/**
 * The server's side of the handshake (see {@link HandshakeMessage}). A wrong proof, a proof
 * without a challenge, a second handshake or a malformed message gets {@link
 * HandshakeMessage#REFUSED}, and the connection stays unauthenticated.
 */
final class HandshakeProcessor implements RpcProcessor<HandshakeMessage> {
    private final HandshakeMacs macs;
    private final RefusalLog refusals;

    HandshakeProcessor(HandshakeMacs macs, RefusalLog refusals) {
        this.macs = macs;
        this.refusals = refusals;
    }

    @Override
    public String interest() {
        return HandshakeMessage.class.getName();
    }

    @Override
    public void handleRequest(RpcContext ctx, HandshakeMessage message) {
        Connection connection = ctx.getConnection();
        if (connection == null) {
            ctx.sendResponse(HandshakeMessage.refused());
            return;
        }
        PeerState state = PeerState.of(connection);
        String refusal;
        switch (message.step()) {
            case HandshakeMessage.HELLO -> {
                byte[] challenge = state.challenge();
                if (challenge != null) {
                    ctx.sendResponse(HandshakeMessage.challenge(challenge));
                    return;
                }
                refusal = "a second handshake on an authenticated connection";
            }
            case HandshakeMessage.PROOF -> {
                byte[] challenge = state.takeChallenge();
                refusal = verify(challenge, message);
                if (refusal == null) {
                    state.authenticated(PeerCredentials.endpointOf(message.peer()));
                    ctx.sendResponse(
                            HandshakeMessage.accepted(macs.serverProof(challenge, message.nonce(), message.peer())));
                    return;
                }
            }
            default -> refusal = "a malformed handshake message";
        }
        refusals.refused(ctx.getRemoteAddress(), refusal);
        // The connection stays open, unauthenticated: closing it here could overtake the answer, and
        // the client would not learn why. The gate refuses everything else on it.
        ctx.sendResponse(HandshakeMessage.refused());
    }

    private String verify(byte[] challenge, HandshakeMessage proof) {
        if (challenge == null) {
            return "a proof without a challenge";
        }
        String peer = PeerCredentials.endpointOf(proof.peer());
        if (peer == null) {
            return "a proof naming no member address"; // not echoed: the stranger wrote it
        }
        if (!HandshakeMacs.same(macs.clientProof(challenge, proof.nonce(), proof.peer()), proof.mac())) {
            return "a proof from " + peer + " not made with the cluster secret";
        }
        return null;
    }
}
