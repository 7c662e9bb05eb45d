package io.lodestar.api.http;

import io.lodestar.api.request.CheckedRequest;

/**
 * One HTTP request and its answer as an {@link Endpoint} sees it, the same whether Javalin routed
 * the request or {@link FastPaths} took it: so each endpoint has one implementation. A typed route
 * hands its parser the whole exchange and its handler only the {@link Answer}.
 */
public interface Exchange extends CheckedRequest, Answer {
    /** The form's and the query's parameters. */
    Params params();

    /** The multipart upload {@code name}, or null (also for a request taken in front of Javalin). */
    default io.javalin.http.UploadedFile uploadedFile(String name) {
        return null;
    }

    /**
     * The route's path parameter {@code name} ({@code {name}} in the route's path), decoded; null
     * when the route has none by that name (a request taken in front of Javalin has none).
     */
    default String pathParam(String name) {
        return null;
    }

    @Override
    default String param(String name) {
        return params().get(name);
    }
}
