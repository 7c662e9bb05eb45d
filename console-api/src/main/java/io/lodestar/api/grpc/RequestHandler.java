package io.lodestar.api.grpc;

import io.lodestar.api.request.Scoped;
import java.util.concurrent.CompletableFuture;

/**
 * What one request type does. A typed request type has a {@link Parser}, which reads the payload
 * once into its typed request, and a {@link Typed} handler, which executes that typed request; the
 * checks authorize it between the two. Each throws (or fails its future) to refuse; the dispatcher
 * answers that through the one error table.
 */
@FunctionalInterface
interface RequestHandler {
    CompletableFuture<Reply> handle(GrpcRequest request) throws Exception;

    /** Reads a payload once into its typed request; throws to refuse it as bad input. */
    @FunctionalInterface
    interface Parser<T extends Scoped> {
        T parse(GrpcRequest request);
    }

    /** Executes a typed request; it sees where the request came from, never its body. */
    @FunctionalInterface
    interface Typed<T extends Scoped> {
        CompletableFuture<Reply> handle(T request, GrpcRequest.Call call) throws Exception;
    }
}
