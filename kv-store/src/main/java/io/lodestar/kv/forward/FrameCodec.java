package io.lodestar.kv.forward;

import io.lodestar.kv.codec.CodecException;
import io.lodestar.kv.codec.HessianCodec;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.raftport.PeerCredentials;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens frames of the node-to-node channel: {@code HMAC-SHA256(secret, context ||
 * payload) || payload}, the payload a Hessian encoding restricted to this channel's own classes. A
 * frame whose MAC does not verify is rejected before its payload is decoded.
 *
 * <p>The context is not sent: both ends know it. A request's is its destination ({@link
 * #toMember}), so a request captured on its way to one member does not verify at another; a
 * reply's is the nonce of the request it answers ({@link #inReplyTo}), so a reply cannot be passed
 * off as the answer to another request, nor a request as a reply.
 */
final class FrameCodec {
    private static final int MAC_LENGTH = 32;
    private static final HessianCodec CODEC = new HessianCodec(allowed());

    private final SecretKeySpec key;

    private static Set<Class<?>> allowed() {
        Set<Class<?>> classes = new HashSet<>(Command.CLASSES);
        classes.addAll(Set.of(ForwardRequest.class, ForwardReply.class, WriteResult.class));
        return classes;
    }

    FrameCodec(byte[] clusterSecret) {
        this.key = new SecretKeySpec(clusterSecret, "HmacSHA256");
    }

    /**
     * The context of a request sent to {@code member}, as host:raftPort (a Raft peer id's index or
     * priority suffix dropped: sender and receiver may spell the same member either way).
     */
    static byte[] toMember(String member) {
        String endpoint = PeerCredentials.endpointOf(member);
        return ("request to " + (endpoint == null ? member : endpoint))
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The context of the reply to the request whose nonce is {@code nonce}. */
    static byte[] inReplyTo(long nonce) {
        return ("reply to " + nonce).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    ForwardFrame seal(Object message, byte[] context) {
        byte[] payload = CODEC.encode(message);
        byte[] mac = mac(context, payload);
        byte[] body = Arrays.copyOf(mac, MAC_LENGTH + payload.length);
        System.arraycopy(payload, 0, body, MAC_LENGTH, payload.length);
        return new ForwardFrame(body);
    }

    /** Verifies in {@code context} and decodes; {@link UnauthorizedFrameException} when the MAC is wrong. */
    <T> T open(ForwardFrame frame, Class<T> type, byte[] context) {
        byte[] body = frame.body();
        if (body.length < MAC_LENGTH) {
            throw new UnauthorizedFrameException("frame shorter than its MAC");
        }
        byte[] payload = Arrays.copyOfRange(body, MAC_LENGTH, body.length);
        if (!MessageDigest.isEqual(mac(context, payload), Arrays.copyOf(body, MAC_LENGTH))) {
            throw new UnauthorizedFrameException("frame MAC does not verify: the peers' cluster secrets differ,"
                    + " or it was meant for another member or request");
        }
        try {
            return CODEC.decode(payload, type);
        } catch (CodecException e) {
            throw new UnauthorizedFrameException("authenticated frame does not decode: " + e.getMessage());
        }
    }

    private byte[] mac(byte[] context, byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            // the context's length first: no context and payload pair reads as another
            mac.update(java.nio.ByteBuffer.allocate(4).putInt(context.length).array());
            mac.update(context);
            return mac.doFinal(payload);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static final class UnauthorizedFrameException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnauthorizedFrameException(String message) {
            super(message);
        }
    }
}
