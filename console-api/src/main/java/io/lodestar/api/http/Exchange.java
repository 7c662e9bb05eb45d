package io.lodestar.api.http;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * One HTTP request and its answer as an {@link Endpoint} sees it, the same whether Javalin routed
 * the request or {@link FastPaths} took it: so each endpoint has one implementation. Errors are
 * not answered here: an endpoint throws them, or fails the future it answers with, and {@link
 * ErrorMapping} answers them.
 */
public interface Exchange extends CheckedRequest {
    /** The form's and the query's parameters. */
    Params params();

    @Override
    default String param(String name) {
        return params().get(name);
    }

    /** Sets a header of the answer; call before answering. */
    Exchange answerHeader(String name, String value);

    /** Answers 200 with {@code body} as {@code contentType}. */
    void answer(String contentType, byte[] body);

    default void answer(String contentType, String body) {
        answer(contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Answers 200 with {@code body} as {@code contentType} once it completes, or the failure it
     * completes with as {@link ErrorMapping} maps it. Until then the request holds no thread.
     */
    void answerWhenDone(String contentType, CompletableFuture<String> body);
}
