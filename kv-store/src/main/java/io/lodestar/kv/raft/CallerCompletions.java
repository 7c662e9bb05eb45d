package io.lodestar.kv.raft;

import io.lodestar.error.Failures;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;

/**
 * The store's "kv-complete" thread, on which every future handed to a caller completes. A future
 * completed on one of JRaft's threads (its state machine, log, read-index or RPC threads) would run
 * the caller's continuations there and stall replication for every other caller. The same thread
 * publishes the change feed, so on one node a listener hears of a change no later than its writer.
 */
final class CallerCompletions {
    static final String THREAD = "kv-complete";

    private final ExecutorService executor;
    private volatile Thread thread;

    CallerCompletions() {
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, THREAD);
            t.setDaemon(true);
            thread = t;
            return t;
        });
    }

    /** The thread itself, for work that must be ordered with callers' completions. */
    Executor executor() {
        return executor;
    }

    /**
     * A future that completes as {@code inner} does, on the completion thread: at once where
     * {@code inner} completes on that thread already, else by a hand-off. After {@link #shutdown()}
     * the hand-off goes to the common pool, still never a JRaft thread.
     */
    <T> CompletableFuture<T> relay(CompletableFuture<T> inner) {
        if (inner.isDone()) {
            return inner; // a continuation attached now runs on the caller's own thread
        }
        CompletableFuture<T> relayed = new CompletableFuture<>();
        inner.whenComplete((value, error) -> {
            if (Thread.currentThread() == thread) {
                settle(relayed, value, error);
                return;
            }
            try {
                executor.execute(() -> settle(relayed, value, error));
            } catch (RejectedExecutionException shutDown) {
                ForkJoinPool.commonPool().execute(() -> settle(relayed, value, error));
            }
        });
        return relayed;
    }

    void shutdown() {
        executor.shutdown();
    }

    private static <T> void settle(CompletableFuture<T> future, T value, Throwable error) {
        if (error == null) {
            future.complete(value);
        } else {
            future.completeExceptionally(Failures.cause(error));
        }
    }
}
