package io.lodestar.api.delivery;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Sends each target the latest message for it until the target acknowledges it: the one
 * push-until-acknowledged rule of the naming pushes (gRPC {@code NotifySubscriberRequest} and the
 * 1.x UDP push).
 *
 * <p>A message not acknowledged is sent again after the retry delay, up to the number of attempts,
 * then given up: the client still has its own poll. A newer message to the same target supersedes
 * an older one, whose retries stop, so a late retry can never bring an older list back (clients
 * take whatever list arrives last). A target forgotten (unsubscribed, its connection closed) gets
 * no more retries.
 *
 * <p>Any thread may call {@link #deliver} and {@link #forget}; retries run on the given timer.
 *
 * @param <K> a target: whatever one subscriber of one service is (equality decides supersession)
 * @param <M> a message
 */
public final class LatestUntilAcked<K, M> {
    /** How a message reaches a target once. */
    public interface Transport<K, M> {
        /**
         * Sends {@code message} once. The future completes when the target acknowledges it, and
         * fails when it cannot be sent or no acknowledgement comes in the transport's time.
         */
        CompletableFuture<?> send(K target, M message);
    }

    /** What became of deliveries, for metrics and logs. */
    public interface Outcomes<K> {
        void retried(K target);

        void gaveUp(K target, Throwable lastFailure);
    }

    private final Transport<K, M> transport;
    private final Outcomes<K> outcomes;
    private final ScheduledExecutorService timer;
    private final int attempts;
    private final long retryDelayNanos;
    /** The version of each target's message still being delivered. */
    private final ConcurrentHashMap<K, Long> latest = new ConcurrentHashMap<>();

    private final AtomicLong versions = new AtomicLong();

    /**
     * @param attempts sends of one message at most, the first included (at least 1)
     * @param retryDelayNanos the wait between a failed attempt and the next
     */
    public LatestUntilAcked(
            Transport<K, M> transport,
            Outcomes<K> outcomes,
            ScheduledExecutorService timer,
            int attempts,
            long retryDelayNanos) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
        }
        this.transport = transport;
        this.outcomes = outcomes;
        this.timer = timer;
        this.attempts = attempts;
        this.retryDelayNanos = retryDelayNanos;
    }

    /** Sends {@code message} to {@code target} now, superseding any message still being delivered to it. */
    public void deliver(K target, M message) {
        long version = versions.incrementAndGet();
        latest.put(target, version);
        attempt(target, message, version, 1);
    }

    /** Stops retrying whatever is being delivered to {@code target}. */
    public void forget(K target) {
        latest.remove(target);
    }

    /** Stops retrying to every target that {@code gone} matches. */
    public void forgetIf(Predicate<K> gone) {
        latest.keySet().removeIf(gone);
    }

    /** Targets with a message not yet acknowledged nor given up. */
    public int inFlight() {
        return latest.size();
    }

    private void attempt(K target, M message, long version, int attempt) {
        CompletableFuture<?> sent;
        try {
            sent = transport.send(target, message);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((ok, failure) -> {
            if (!current(target, version)) {
                return; // superseded or forgotten meanwhile
            }
            if (failure == null) {
                latest.remove(target, version);
            } else if (attempt >= attempts) {
                if (latest.remove(target, version)) {
                    outcomes.gaveUp(target, failure);
                }
            } else {
                retryLater(target, message, version, attempt + 1);
            }
        });
    }

    private void retryLater(K target, M message, long version, int attempt) {
        Runnable retry = () -> {
            if (current(target, version)) {
                outcomes.retried(target);
                attempt(target, message, version, attempt);
            }
        };
        try {
            timer.schedule(retry, retryDelayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            latest.remove(target, version);
        }
    }

    private boolean current(K target, long version) {
        Long now = latest.get(target);
        return now != null && now == version;
    }
}
