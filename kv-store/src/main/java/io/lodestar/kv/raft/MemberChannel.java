package io.lodestar.kv.raft;

import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.cluster.PeerMessageHandler;
import io.lodestar.kv.forward.ForwardClient;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The store's {@link PeerChannel}: messages to other members over the authenticated forwarding
 * connections, answers completed on the store's completion thread; handlers registered by topic,
 * which the forwarding server looks up.
 */
final class MemberChannel implements PeerChannel {
    private final ForwardClient forwarder;
    private final Map<String, PeerMessageHandler> handlers;
    private final CallerCompletions completions;
    private final BooleanSupplier closed;

    MemberChannel(
            ForwardClient forwarder,
            Map<String, PeerMessageHandler> handlers,
            CallerCompletions completions,
            BooleanSupplier closed) {
        this.forwarder = forwarder;
        this.handlers = handlers;
        this.completions = completions;
        this.closed = closed;
    }

    @Override
    public CompletableFuture<byte[]> send(String peer, String topic, byte[] payload, long timeoutMillis) {
        if (closed.getAsBoolean()) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the store is shutting down"));
        }
        return completions.relay(forwarder.message(peer, topic, payload, timeoutMillis));
    }

    @Override
    public void handle(String topic, PeerMessageHandler handler) {
        handlers.put(topic, handler);
    }
}
