package io.lodestar.kv.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * Request/answer messages between members, for services that replicate outside Raft (the
 * registry's ephemeral instances). Rides the store's node-to-node channel: every frame carries an
 * HMAC under the cluster secret and is refused when stale or replayed, so a handler only ever
 * sees members that hold the secret. Payloads are opaque bytes: each service encodes its own.
 */
public interface PeerChannel {
    /**
     * Sends {@code payload} to the member at {@code peer} (its Raft address, as in {@link
     * ClusterView.Member#address()}); completes with the answer of its handler for {@code topic}, or
     * fails with a {@link io.lodestar.kv.KvException} (unreachable, refused, no handler, no answer
     * within the timeout). Never blocks.
     */
    CompletableFuture<byte[]> send(String peer, String topic, byte[] payload, long timeoutMillis);

    /** Routes this node's incoming messages of {@code topic} to {@code handler}, replacing any earlier one. */
    void handle(String topic, PeerMessageHandler handler);
}
