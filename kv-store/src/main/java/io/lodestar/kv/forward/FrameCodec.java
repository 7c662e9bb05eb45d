package io.lodestar.kv.forward;

import io.lodestar.kv.codec.CodecException;
import io.lodestar.kv.codec.HessianCodec;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.command.WriteResult;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens frames of the node-to-node channel: {@code HMAC-SHA256(secret, payload) ||
 * payload}, the payload a Hessian encoding restricted to this channel's own classes. A frame whose
 * MAC does not verify is rejected before its payload is decoded.
 */
final class FrameCodec {
    private static final int MAC_LENGTH = 32;
    private static final HessianCodec CODEC = new HessianCodec(Set.of(
            ForwardRequest.class, ForwardReply.class, Command.class, Op.class, Compare.class, WriteResult.class));

    private final SecretKeySpec key;

    FrameCodec(byte[] clusterSecret) {
        this.key = new SecretKeySpec(clusterSecret, "HmacSHA256");
    }

    ForwardFrame seal(Object message) {
        byte[] payload = CODEC.encode(message);
        byte[] mac = mac(payload);
        byte[] body = Arrays.copyOf(mac, MAC_LENGTH + payload.length);
        System.arraycopy(payload, 0, body, MAC_LENGTH, payload.length);
        return new ForwardFrame(body);
    }

    /** Verifies and decodes; {@link UnauthorizedFrameException} when the MAC is wrong. */
    <T> T open(ForwardFrame frame, Class<T> type) {
        byte[] body = frame.body();
        if (body.length < MAC_LENGTH) {
            throw new UnauthorizedFrameException("frame shorter than its MAC");
        }
        byte[] payload = Arrays.copyOfRange(body, MAC_LENGTH, body.length);
        if (!MessageDigest.isEqual(mac(payload), Arrays.copyOf(body, MAC_LENGTH))) {
            throw new UnauthorizedFrameException("frame MAC does not verify: the peers' cluster secrets differ");
        }
        try {
            return CODEC.decode(payload, type);
        } catch (CodecException e) {
            throw new UnauthorizedFrameException("authenticated frame does not decode: " + e.getMessage());
        }
    }

    private byte[] mac(byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
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
