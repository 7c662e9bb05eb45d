package io.lodestar.kv.retry;

import io.lodestar.error.Failures;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Runs an asynchronous attempt again, after a fixed backoff, until it succeeds, fails in a way that
 * is not worth retrying, or a deadline passes: e.g. a write sent to whichever node leads now, tried
 * again while leadership moves.
 *
 * <p>Contract: an attempt returns a future (or throws, which counts as that failure). A failure for
 * which {@code retryable} holds schedules the next attempt {@code backoff} later on {@code
 * scheduler}; any other failure, and a success, complete the result at once, on the thread that
 * completed the attempt. Once the deadline has passed, no attempt starts: the result fails with
 * {@code onDeadline} applied to the last retryable failure (null if no attempt ran). When the
 * scheduler refuses the retry (it is shutting down) the result fails with {@code onShutdown}. A
 * {@link CompletionException} is unwrapped before the predicate sees it. One instance serves any
 * number of concurrent runs; it holds no state of its own between them.
 */
public final class RetryUntilDeadline {
    /** One try; given the deadline, as a {@link System#nanoTime()} value, to bound its own waits. */
    @FunctionalInterface
    public interface Attempt<T> {
        CompletableFuture<T> run(long deadlineNanos);
    }

    private final ScheduledExecutorService scheduler;
    private final long backoffNanos;
    private final Predicate<Throwable> retryable;
    private final Function<Throwable, ? extends Throwable> onDeadline;
    private final Supplier<? extends Throwable> onShutdown;

    public RetryUntilDeadline(
            ScheduledExecutorService scheduler,
            Duration backoff,
            Predicate<Throwable> retryable,
            Function<Throwable, ? extends Throwable> onDeadline,
            Supplier<? extends Throwable> onShutdown) {
        this.scheduler = Objects.requireNonNull(scheduler);
        this.backoffNanos = backoff.toNanos();
        this.retryable = Objects.requireNonNull(retryable);
        this.onDeadline = Objects.requireNonNull(onDeadline);
        this.onShutdown = Objects.requireNonNull(onShutdown);
    }

    /** Runs {@code attempt} now, on the calling thread, and again as the contract says until {@code deadlineNanos}. */
    public <T> CompletableFuture<T> run(long deadlineNanos, Attempt<T> attempt) {
        CompletableFuture<T> result = new CompletableFuture<>();
        tryOnce(attempt, deadlineNanos, null, result);
        return result;
    }

    private <T> void tryOnce(Attempt<T> attempt, long deadlineNanos, Throwable last, CompletableFuture<T> result) {
        if (deadlineNanos - System.nanoTime() <= 0) {
            result.completeExceptionally(onDeadline.apply(last));
            return;
        }
        CompletableFuture<T> once;
        try {
            once = attempt.run(deadlineNanos);
        } catch (RuntimeException e) {
            once = CompletableFuture.failedFuture(e);
        }
        once.whenComplete((value, error) -> {
            Throwable cause = Failures.cause(error);
            if (cause == null) {
                result.complete(value);
            } else if (retryable.test(cause)) {
                retryLater(attempt, deadlineNanos, cause, result);
            } else {
                result.completeExceptionally(cause);
            }
        });
    }

    private <T> void retryLater(Attempt<T> attempt, long deadlineNanos, Throwable last, CompletableFuture<T> result) {
        try {
            scheduler.schedule(() -> tryOnce(attempt, deadlineNanos, last, result), backoffNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(onShutdown.get());
        }
    }
}
