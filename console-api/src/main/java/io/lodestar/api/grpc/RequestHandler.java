package io.lodestar.api.grpc;

import java.util.concurrent.CompletableFuture;

/**
 * What one request type does: read the request, call the domain, answer. It throws (or fails its
 * future) to refuse; the dispatcher answers that through the one error table.
 */
@FunctionalInterface
interface RequestHandler {
    CompletableFuture<Reply> handle(GrpcRequest request) throws Exception;
}
