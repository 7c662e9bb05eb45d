package io.lodestar.naming.persistent;

import io.lodestar.kv.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Retries of read-modify-write commands whose guard failed because another write got there first. */
final class Retry {
    static final int ATTEMPTS = 32;

    private Retry() {}

    /**
     * Runs {@code again} after a short random pause (so writers racing for one key do not keep
     * colliding in step), or fails with {@link StoreUnavailableException} after {@value #ATTEMPTS}
     * attempts; nothing was written by the failed attempts.
     */
    static <T> CompletableFuture<T> again(int attempt, String what, Supplier<CompletableFuture<T>> again) {
        if (attempt >= ATTEMPTS) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(
                    what + " changed under " + ATTEMPTS + " attempts in a row; try again"));
        }
        long pauseMicros = ThreadLocalRandom.current().nextLong(100, 500L * Math.min(attempt, 8));
        return CompletableFuture.supplyAsync(again, CompletableFuture.delayedExecutor(pauseMicros, TimeUnit.MICROSECONDS))
                .thenCompose(f -> f);
    }
}
