package io.lodestar.kv.raft;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/** Futures completed once the local state machine has applied a given log index. */
final class AppliedIndexWaiters {
    private record Waiter(long index, CompletableFuture<Void> future) {}

    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.index, b.index));
    private long applied;

    synchronized CompletableFuture<Void> await(long index) {
        if (index <= applied) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        waiters.add(new Waiter(index, f));
        return f;
    }

    void advance(long index) {
        CompletableFuture<?>[] ready;
        synchronized (this) {
            applied = Math.max(applied, index);
            java.util.List<CompletableFuture<Void>> due = new java.util.ArrayList<>();
            while (!waiters.isEmpty() && waiters.peek().index <= applied) {
                due.add(waiters.poll().future);
            }
            ready = due.toArray(new CompletableFuture<?>[0]);
        }
        for (CompletableFuture<?> f : ready) {
            f.complete(null);
        }
    }
}
