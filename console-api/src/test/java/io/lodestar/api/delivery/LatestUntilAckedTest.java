package io.lodestar.api.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.kv.testing.Await;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LatestUntilAckedTest {
    /** One send: its target, its message, and the answer the test gives it. */
    private record Sent(String target, String message, CompletableFuture<Void> answer) {}

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final LinkedBlockingQueue<Sent> sends = new LinkedBlockingQueue<>();
    private final List<String> retried = new CopyOnWriteArrayList<>();
    private final List<String> gaveUp = new CopyOnWriteArrayList<>();

    private final LatestUntilAcked<String, String> delivery = new LatestUntilAcked<>(
            (target, message) -> {
                Sent s = new Sent(target, message, new CompletableFuture<>());
                sends.add(s);
                return s.answer();
            },
            new LatestUntilAcked.Outcomes<>() {
                @Override
                public void retried(String target) {
                    retried.add(target);
                }

                @Override
                public void gaveUp(String target, Throwable lastFailure) {
                    gaveUp.add(target);
                }
            },
            timer,
            3,
            TimeUnit.MILLISECONDS.toNanos(10));

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private Sent nextSend() throws InterruptedException {
        Sent s = sends.poll(5, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("nothing was sent within 5 s");
        }
        return s;
    }

    /** Long enough for a retry (10 ms apart) to have been sent, were one due. */
    private void assertNothingMoreSent() throws InterruptedException {
        Sent extra = sends.poll(200, TimeUnit.MILLISECONDS);
        assertEquals(null, extra, "nothing more is sent");
    }

    @Test
    void anAcknowledgedMessageIsSentOnce() throws Exception {
        delivery.deliver("a", "v1");
        nextSend().answer().complete(null);
        assertNothingMoreSent();
        assertEquals(0, delivery.inFlight());
        assertEquals(List.of(), retried);
    }

    @Test
    void anUnacknowledgedMessageIsSentTheGivenNumberOfTimesThenGivenUp() throws Exception {
        delivery.deliver("a", "v1");
        for (int i = 0; i < 3; i++) {
            Sent s = nextSend();
            assertEquals("v1", s.message());
            s.answer().completeExceptionally(new TimeoutException());
        }
        assertNothingMoreSent();
        assertEquals(List.of("a", "a"), retried);
        assertEquals(List.of("a"), gaveUp);
        assertEquals(0, delivery.inFlight());
    }

    @Test
    void aNewerMessageStopsTheRetriesOfAnOlderOne() throws Exception {
        delivery.deliver("a", "v1");
        Sent old = nextSend();
        delivery.deliver("a", "v2");
        Sent newer = nextSend();
        old.answer().completeExceptionally(new TimeoutException());
        newer.answer().completeExceptionally(new TimeoutException());
        Sent retry = nextSend();
        assertEquals("v2", retry.message(), "only the newer message is retried");
        retry.answer().complete(null);
        assertNothingMoreSent();
        assertEquals(List.of(), gaveUp, "a superseded message is not reported given up");
    }

    @Test
    void aForgottenTargetGetsNoRetry() throws Exception {
        delivery.deliver("a", "v1");
        delivery.deliver("b", "v1");
        Sent a = nextSend();
        Sent b = nextSend();
        delivery.forget("a");
        delivery.forgetIf(t -> t.equals("b"));
        a.answer().completeExceptionally(new TimeoutException());
        b.answer().completeExceptionally(new TimeoutException());
        assertNothingMoreSent();
        assertEquals(0, delivery.inFlight());
    }

    @Test
    void aSendThatThrowsIsRetriedLikeAFailedOne() throws Exception {
        int[] calls = {0};
        LatestUntilAcked<String, String> throwing = new LatestUntilAcked<>(
                (t, m) -> {
                    calls[0]++;
                    throw new IllegalStateException("closed");
                },
                new LatestUntilAcked.Outcomes<>() {
                    @Override
                    public void retried(String target) {}

                    @Override
                    public void gaveUp(String target, Throwable lastFailure) {
                        gaveUp.add(target + ": " + lastFailure.getMessage());
                    }
                },
                timer,
                2,
                0);
        throwing.deliver("a", "v1");
        Await.until("given up", () -> gaveUp.size() == 1);
        assertEquals(List.of("a: closed"), gaveUp);
        assertEquals(2, calls[0]);
    }
}
