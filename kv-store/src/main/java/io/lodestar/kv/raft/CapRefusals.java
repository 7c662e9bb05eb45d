package io.lodestar.kv.raft;

import io.lodestar.error.LimitExceededException;
import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.WriteResult;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Makes a write refused by a put's {@link Cap} the error its caller answers with, naming the limit,
 * and tells a listener (the node's refusal counts) which limit refused it. Thread-safe.
 */
final class CapRefusals {
    private volatile Consumer<String> listener = limit -> {};

    void listen(Consumer<String> listener) {
        this.listener = listener;
    }

    /** {@code result} as it is, or failed with {@link LimitExceededException} if a cap refused it. */
    CompletableFuture<WriteResult> check(WriteResult result) {
        Cap cap = result.overCap();
        if (cap == null) {
            return CompletableFuture.completedFuture(result);
        }
        listener.accept(cap.limit());
        return CompletableFuture.failedFuture(LimitExceededException.tooMany(cap.limit(), cap.max(), cap.what()));
    }
}
