package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Raft ReadIndex: completes once this node has applied everything committed when the call was
 * made, as confirmed by the leader's quorum. Bounded by the store's own deadlines, not JRaft's
 * per-read timer (see {@link Deadlines} for why).
 */
final class LinearizableReads {
    private final Supplier<Node> node;
    private final Deadlines deadlines;
    private final BooleanSupplier closed;

    LinearizableReads(Supplier<Node> node, Deadlines deadlines, BooleanSupplier closed) {
        this.node = node;
        this.deadlines = deadlines;
        this.closed = closed;
    }

    /** Completes on a JRaft thread (or the deadline's); the store relays it to its callers' thread. */
    CompletableFuture<Void> readIndex() {
        CompletableFuture<Void> future = new CompletableFuture<>();
        if (closed.getAsBoolean()) {
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down"));
            return future;
        }
        try {
            // no JRaft timer (-1): the deadlines bound the wait
            deadlines.add(future);
            node.get().readIndex(new byte[0], new ReadIndexClosure(-1) {
                @Override
                public void run(Status status, long index, byte[] reqCtx) {
                    if (status.isOk()) {
                        future.complete(null);
                    } else {
                        future.completeExceptionally(new NoLeaderException(
                                "linearizable read not confirmed by a leader: " + status.getErrorMsg()));
                    }
                }
            });
        } catch (IllegalStateException e) {
            // JRaft throws (after failing the closure) once the node is shutting down
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down"));
        }
        return future;
    }
}
