package io.lodestar.naming.service;

import io.lodestar.error.Failures;
import io.lodestar.kv.KvStore;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.ServiceNotFoundException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Confirms a "not found" refusal against the leader before it reaches the caller: a follower may
 * not yet have applied a write another node already acknowledged, and a client that created
 * something on one node and edits it on another must not be told it does not exist.
 */
final class AbsenceConfirmation {
    private final KvStore store;

    AbsenceConfirmation(KvStore store) {
        this.store = store;
    }

    /**
     * Runs {@code op}, and once more after this node's replica has caught up with the leader
     * ({@link KvStore#linearizable()}) if it failed for want of the service or instance. Only
     * refusals pay for the extra round trip.
     */
    <T> CompletableFuture<T> confirming(Supplier<CompletableFuture<T>> op) {
        return op.get().exceptionallyCompose(e -> {
            Throwable cause = Failures.cause(e);
            return cause instanceof ServiceNotFoundException || cause instanceof InstanceNotFoundException
                    ? store.linearizable().thenCompose(caughtUp -> op.get())
                    : CompletableFuture.failedFuture(cause);
        });
    }
}
