package io.lodestar.kv.forward;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.command.Command;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
    private static final byte[] SECRET = "a-cluster-secret-of-some-length".getBytes(StandardCharsets.UTF_8);
    private static final byte[] TO_B = FrameCodec.toMember("127.0.0.1:7849");

    private static ForwardRequest request() {
        return new ForwardRequest(
                ForwardRequest.WRITE,
                "127.0.0.1:7848",
                System.currentTimeMillis(),
                42L,
                Command.put("ks", "k".getBytes(), "v".getBytes()));
    }

    @Test
    void sealedFrameOpensWithTheSameSecret() {
        FrameCodec codec = new FrameCodec(SECRET);
        ForwardRequest opened = codec.open(codec.seal(request(), TO_B), ForwardRequest.class, TO_B);
        assertEquals(42L, opened.nonce());
        assertArrayEquals("v".getBytes(), opened.command().ops().get(0).value());
    }

    @Test
    void frameFromAnotherSecretIsRefusedBeforeDecoding() {
        ForwardFrame foreign = new FrameCodec("another-secret-entirely-000".getBytes()).seal(request(), TO_B);
        FrameCodec.UnauthorizedFrameException e = assertThrows(
                FrameCodec.UnauthorizedFrameException.class,
                () -> new FrameCodec(SECRET).open(foreign, ForwardRequest.class, TO_B));
        assertTrue(e.getMessage().contains("cluster secret"), e.getMessage());
    }

    @Test
    void tamperedOrTruncatedFrameIsRefused() {
        FrameCodec codec = new FrameCodec(SECRET);
        byte[] body = codec.seal(request(), TO_B).body();
        body[body.length - 1] ^= 1;
        assertThrows(
                FrameCodec.UnauthorizedFrameException.class,
                () -> codec.open(new ForwardFrame(body), ForwardRequest.class, TO_B));
        assertThrows(
                FrameCodec.UnauthorizedFrameException.class,
                () -> codec.open(new ForwardFrame(new byte[5]), ForwardRequest.class, TO_B));
    }

    @Test
    void aFrameOpensOnlyInTheContextItWasSealedFor() {
        FrameCodec codec = new FrameCodec(SECRET);
        ForwardFrame toB = codec.seal(request(), TO_B);
        assertThrows(
                FrameCodec.UnauthorizedFrameException.class,
                () -> codec.open(toB, ForwardRequest.class, FrameCodec.toMember("127.0.0.1:7850")),
                "a request for one member does not verify at another");
        assertEquals(
                42L,
                codec.open(toB, ForwardRequest.class, FrameCodec.toMember("127.0.0.1:7849:0"))
                        .nonce(),
                "the same member spelled as a Raft peer id");
        ForwardFrame reply =
                codec.seal(new ForwardReply(ForwardReply.OK, null, null, null, null, 0), FrameCodec.inReplyTo(1));
        assertThrows(
                FrameCodec.UnauthorizedFrameException.class,
                () -> codec.open(reply, ForwardReply.class, FrameCodec.inReplyTo(2)),
                "a reply answers its own request only");
        assertThrows(
                FrameCodec.UnauthorizedFrameException.class,
                () -> codec.open(toB, ForwardRequest.class, FrameCodec.inReplyTo(42)),
                "a request is no reply");
    }

    @Test
    void replayedNonceIsRefusedWithinTheWindow() {
        ReplayGuard guard = new ReplayGuard(120_000);
        long now = System.currentTimeMillis();
        assertTrue(guard.firstSighting(7, now));
        assertFalse(guard.firstSighting(7, now), "the same frame again");
        assertTrue(guard.firstSighting(8, now));
    }
}
