package io.lodestar.api.grpc;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.metrics.Metrics;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client connection: one HTTP/2 connection to the gRPC port, named when the transport is
 * ready and bound to every call made on it, so a client never names its connection itself. It is
 * registered once its bi-stream carries a {@code ConnectionSetupRequest}; only then does it take
 * requests other than the server check, and only through its stream does the server push.
 *
 * <p>Thread-safety: any thread; writes to the stream are serialized here.
 */
final class Connection {
    private final String id;
    private final String remoteIp;
    private final int remotePort;
    private final AtomicLong lastActive = new AtomicLong(System.currentTimeMillis());
    private final AtomicLong pushIds = new AtomicLong();
    private final Metrics metrics;
    private final Map<String, CompletableFuture<Void>> awaitingAck = new ConcurrentHashMap<>();
    private volatile Setup setup;
    private ServerCallStreamObserver<Payload> stream; // guarded by this
    private boolean closed; // guarded by this
    private final long maxUnreadBytes;
    private long unreadBytes; // guarded by this: bytes sent since the stream last had room
    private volatile boolean sentElsewhere;
    private volatile long setUpAt; // when register succeeded, in millis; 0 until then

    /** What the client said of itself when it set the connection up. */
    record Setup(String clientVersion, Map<String, String> labels, String tenant) {
        /** What the setup keeps for the connection's life, in UTF-8 bytes. */
        long keptBytes() {
            long n = utf8(clientVersion) + utf8(tenant);
            for (Map.Entry<String, String> e : labels.entrySet()) {
                n += utf8(e.getKey()) + utf8(e.getValue());
            }
            return n;
        }

        private static long utf8(String s) {
            return s == null ? 0 : s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        }
    }

    /**
     * @param maxUnreadBytes what may wait in the transport for a client that does not read its
     *     stream ({@link Limit#GRPC_UNREAD_PUSH_BYTES}); past it the connection is closed
     */
    Connection(String id, String remoteIp, int remotePort, Metrics metrics, long maxUnreadBytes) {
        this.id = id;
        this.remoteIp = remoteIp;
        this.remotePort = remotePort;
        this.metrics = metrics;
        this.maxUnreadBytes = maxUnreadBytes;
    }

    String id() {
        return id;
    }

    /** The peer's address, from the socket. */
    String remoteIp() {
        return remoteIp;
    }

    int remotePort() {
        return remotePort;
    }

    boolean registered() {
        return setup != null;
    }

    Setup setup() {
        return setup;
    }

    /** When the connection was set up (millis); 0 while it is not. */
    long setUpAt() {
        return setUpAt;
    }

    /** Set up, open, and not sent elsewhere: a client this node serves and may still send away. */
    boolean movable() {
        return registered() && !sentElsewhere && !closed();
    }

    long lastActive() {
        return lastActive.get();
    }

    void touch() {
        lastActive.set(System.currentTimeMillis());
    }

    /**
     * The server sent the client to another server ({@code ConnectResetRequest}): the client
     * registers its instances there again, so this connection's end must not deregister them.
     */
    boolean sentElsewhere() {
        return sentElsewhere;
    }

    void markSentElsewhere() {
        sentElsewhere = true;
    }

    /** Registers the connection with its bi-stream; false if it was closed meanwhile or already set up. */
    synchronized boolean register(Setup setup, ServerCallStreamObserver<Payload> stream) {
        if (closed || this.setup != null) {
            return false;
        }
        this.stream = stream;
        this.setup = setup;
        this.setUpAt = System.currentTimeMillis();
        return true;
    }

    /**
     * Sends {@code request} on the stream; the future completes when the client answers it, and
     * fails when it does not within {@code timeoutMs} or the connection closes first. Nothing is
     * sent on a closed or unregistered connection.
     */
    CompletableFuture<Void> push(Reply request, long timeoutMs) {
        String requestId = request.body().get("requestId").asText();
        CompletableFuture<Void> ack = new CompletableFuture<>();
        awaitingAck.put(requestId, ack);
        if (!send(request)) {
            awaitingAck.remove(requestId);
            metrics.grpcPush(request.type(), "failed");
            ack.completeExceptionally(new IllegalStateException("connection " + id + " is closed"));
            return ack;
        }
        // an unanswered request is forgotten, so a client that never answers holds nothing here
        return ack.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((ok, e) -> {
            awaitingAck.remove(requestId);
            metrics.grpcPush(request.type(), e == null ? "acked" : "failed");
        });
    }

    /**
     * Sends {@code request} without waiting for an answer; false if the connection cannot send. A
     * client that stops reading its stream is closed once more than its limit of unread bytes
     * waits for it, counted as encoded (one service's instance list can be megabytes, a config
     * notice a hundred bytes), so that it cannot make the server buffer without bound.
     */
    boolean send(Reply request) {
        boolean tooSlow;
        synchronized (this) {
            if (closed || stream == null) {
                return false;
            }
            Payload payload = PayloadCodec.encode(request.type(), request.body());
            try {
                stream.onNext(payload);
            } catch (RuntimeException e) { // the call was cancelled under us
                return false;
            }
            unreadBytes = stream.isReady() ? 0 : unreadBytes + payload.getSerializedSize();
            tooSlow = unreadBytes > maxUnreadBytes;
        }
        metrics.grpcPush(request.type(), "sent");
        if (tooSlow) {
            metrics.limitRefused(Limit.GRPC_UNREAD_PUSH_BYTES);
            close("the client left more than " + maxUnreadBytes + " pushed bytes unread ("
                    + Limit.GRPC_UNREAD_PUSH_BYTES.key() + ")");
        }
        return true;
    }

    /** The next id for a request this server pushes. */
    String nextPushId() {
        return Long.toString(pushIds.incrementAndGet());
    }

    /** The client answered the pushed request {@code requestId}. */
    void acknowledged(String requestId) {
        touch();
        CompletableFuture<Void> ack = requestId == null ? null : awaitingAck.remove(requestId);
        if (ack != null) {
            ack.complete(null);
        }
    }

    /**
     * Closes the connection's stream (the client then reconnects) and fails what waits for an
     * answer. Returns false if it was already closed. Its transport stays up until the client
     * drops it; calls on it are refused as unregistered.
     */
    boolean close(String why) {
        ServerCallStreamObserver<Payload> s;
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            s = stream;
            stream = null;
        }
        if (s != null) {
            try {
                s.onError(Status.UNAVAILABLE.withDescription(why).asRuntimeException());
            } catch (RuntimeException e) { // already cancelled by the client
            }
        }
        IllegalStateException gone = new IllegalStateException("connection " + id + " closed: " + why);
        awaitingAck.values().forEach(f -> f.completeExceptionally(gone));
        awaitingAck.clear();
        return true;
    }

    synchronized boolean closed() {
        return closed;
    }

    @Override
    public String toString() {
        return "gRPC connection " + id;
    }
}
