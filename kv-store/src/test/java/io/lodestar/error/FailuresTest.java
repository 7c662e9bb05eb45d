package io.lodestar.error;

import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class FailuresTest {
    @Test
    void aDependentStageSeesTheSourcesFailure() {
        RuntimeException refused = new InvalidRequestException("dataId", "dataId is blank");
        CompletableFuture<Object> dependent =
                CompletableFuture.failedFuture(refused).thenApply(v -> v);
        Throwable[] seen = new Throwable[1];
        dependent.whenComplete((v, e) -> seen[0] = e);
        assertSame(refused, Failures.cause(seen[0]));
    }

    @Test
    void nestedWrappersAreAllTakenOff() {
        IllegalStateException bug = new IllegalStateException();
        assertSame(bug, Failures.cause(new CompletionException(new ExecutionException(bug))));
    }

    @Test
    void aWrapperOfNothingAndABareFailureStayAsTheyAre() {
        CompletionException empty = new CompletionException("no cause", null);
        IllegalStateException bare = new IllegalStateException();
        assertSame(empty, Failures.cause(empty));
        assertSame(bare, Failures.cause(bare));
    }
}
