package io.lodestar.api.http;

import jakarta.servlet.ServletRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.server.Request;

/**
 * The web server's own threads, where an answer whose future completed elsewhere is written. The
 * store completes every write on its one completion thread, shared by all callers: writing the
 * answer and its audit line there would make that thread the limit of every write's throughput, and
 * a slow client's socket would hold up everyone else's answers.
 */
final class WebThreads {
    private WebThreads() {}

    /** The pool serving {@code req}; a task it refuses (the server is stopping) runs on the calling thread. */
    static Executor of(ServletRequest req) {
        Executor pool =
                Request.getBaseRequest(req).getHttpChannel().getConnector().getExecutor();
        return task -> {
            try {
                pool.execute(task);
            } catch (RejectedExecutionException stopping) {
                task.run();
            }
        };
    }

    /** {@code future}'s outcome, passed on by one of {@code req}'s pool threads unless it is already there. */
    static <T> CompletableFuture<T> answerOn(ServletRequest req, CompletableFuture<T> future) {
        return future.isDone() ? future : future.whenCompleteAsync((value, error) -> {}, of(req));
    }
}
