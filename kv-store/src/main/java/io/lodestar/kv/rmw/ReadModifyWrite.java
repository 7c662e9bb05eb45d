package io.lodestar.kv.rmw;

import io.lodestar.kv.KvStore;
import io.lodestar.kv.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Read-modify-writes on a {@link KvStore}: an attempt reads this node's replica and decides a
 * {@link Step}, typically a {@link io.lodestar.kv.command.Command} guarded by the revisions it read;
 * when a guard fails (another write to those keys committed first, a lost race) the attempt runs
 * again on a fresh read after a short random pause, up to a bound of attempts in all.
 *
 * <p>The attempt runs first on the caller's thread, later on a store or pool thread: it must not
 * block. It may throw to refuse; its exception fails the future and nothing more is proposed. A lost
 * race writes nothing, so only the command whose guards held has any effect. Other failures of
 * {@link KvStore#write} fail the future as they are, without a retry. Thread-safe.
 */
public final class ReadModifyWrite {
    public static final int DEFAULT_ATTEMPTS = 32;

    private final KvStore store;
    private final int attempts;

    /** Up to {@value #DEFAULT_ATTEMPTS} attempts. */
    public ReadModifyWrite(KvStore store) {
        this(store, DEFAULT_ATTEMPTS);
    }

    public ReadModifyWrite(KvStore store, int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("at least one attempt, not " + attempts);
        }
        this.store = store;
        this.attempts = attempts;
    }

    /**
     * Runs {@code attempt} until its command commits or it answers. When every attempt lost its race,
     * fails with {@link StoreUnavailableException}: "{@code what} changed under N attempts in a row;
     * try again".
     */
    public <T> CompletableFuture<T> run(String what, Supplier<Step<T>> attempt) {
        return run(
                attempt,
                () -> CompletableFuture.failedFuture(new StoreUnavailableException(
                        what + " changed under " + attempts + " attempts in a row; try again")));
    }

    /**
     * As {@link #run(String, Supplier)}, but when every attempt lost its race the operation completes
     * as {@code lostEveryRace} says: for callers to whom a lost race is an answer (a compare-and-set
     * that found the value changed, an edit that lets the others' stand).
     */
    public <T> CompletableFuture<T> run(Supplier<Step<T>> attempt, Supplier<CompletableFuture<T>> lostEveryRace) {
        return attempt(attempt, lostEveryRace, 1, false);
    }

    private <T> CompletableFuture<T> attempt(
            Supplier<Step<T>> attempt, Supplier<CompletableFuture<T>> lostEveryRace, int n, boolean replicaCurrent) {
        Step<T> step;
        try {
            step = attempt.get();
        } catch (RuntimeException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        if (step instanceof Step.Answer<T> answer) {
            return !answer.needsCurrentReplica() || replicaCurrent
                    ? CompletableFuture.completedFuture(answer.value())
                    : store.linearizable().thenCompose(v -> attempt(attempt, lostEveryRace, n, true));
        }
        Step.Propose<T> propose = (Step.Propose<T>) step;
        return store.write(propose.command()).thenCompose(r -> {
            if (r.succeeded()) {
                return CompletableFuture.completedFuture(propose.committed().apply(r));
            }
            if (n >= attempts) {
                return lostEveryRace.get();
            }
            // a short random pause, so writers racing for one key do not keep colliding in step
            long pauseMicros = ThreadLocalRandom.current().nextLong(100, 500L * Math.min(n, 8));
            Executor afterPause = CompletableFuture.delayedExecutor(pauseMicros, TimeUnit.MICROSECONDS);
            return CompletableFuture.completedFuture(null)
                    .thenComposeAsync(paused -> attempt(attempt, lostEveryRace, n + 1, false), afterPause);
        });
    }
}
