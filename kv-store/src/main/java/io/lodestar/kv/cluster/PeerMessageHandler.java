package io.lodestar.kv.cluster;

import java.util.concurrent.CompletableFuture;

/** Answers one topic's messages from other members (see {@link PeerChannel}). */
@FunctionalInterface
public interface PeerMessageHandler {
    /**
     * Called on an RPC thread for each message, after its sender was authenticated by the cluster
     * secret: must not block; do slow work asynchronously. A failed future (or a throw) reaches the
     * sender as a refusal carrying its message.
     *
     * @param from the sender's Raft address ({@code host:raftPort})
     */
    CompletableFuture<byte[]> handle(String from, byte[] payload);
}
