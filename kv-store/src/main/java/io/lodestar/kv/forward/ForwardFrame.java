package io.lodestar.kv.forward;

/**
 * What travels over bolt on the node-to-node channel: opaque bytes (a MAC, then a Hessian payload).
 * Bolt carries it through {@link ForwardFrameSerializer}, never through bolt's own Hessian.
 */
public final class ForwardFrame {
    private final byte[] body;

    public ForwardFrame(byte[] body) {
        this.body = body;
    }

    public byte[] body() {
        return body;
    }
}
