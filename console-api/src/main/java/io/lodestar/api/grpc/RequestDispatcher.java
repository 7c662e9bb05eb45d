package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.grpc.wire.Payload;
import io.lodestar.api.http.ErrorMapping;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.error.InvalidRequestException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The one path of a unary request: the server check (answered on any connection), then, on a
 * registered connection only, the request checks every entry point runs, then the handler of its
 * type. Every failure is answered through {@link ErrorMapping}'s gRPC column: as the request
 * type's own failed response where Nacos answers so (config), else as an {@code ErrorResponse}
 * (which the client retries within its timeout).
 */
final class RequestDispatcher {
    static final String ERROR_RESPONSE = "ErrorResponse";

    private record Route(String failureType, RequestHandler handler) {}

    private final Map<String, Route> routes = new HashMap<>();
    private final java.util.Set<String> typed = new java.util.TreeSet<>();
    private final RequestChecks checks;
    private final Metrics metrics;
    private final Executor answers;

    /**
     * {@code answers}: where an answer whose future completed on another thread (the store's one
     * completion thread, shared by every caller) is encoded, audited and sent.
     */
    RequestDispatcher(RequestChecks checks, Metrics metrics, Executor answers) {
        this.checks = checks;
        this.metrics = metrics;
        this.answers = answers;
    }

    /**
     * Routes {@code requestType} to {@code handler}; its failures are answered as {@code
     * failureType}, or as an {@code ErrorResponse} when null. Call before the server starts.
     */
    RequestDispatcher add(String requestType, String failureType, RequestHandler handler) {
        if (routes.putIfAbsent(requestType, new Route(failureType, handler)) != null) {
            throw new IllegalStateException(requestType + " routed twice");
        }
        return this;
    }

    /**
     * Routes {@code requestType} to {@code parse}, then the checks' authorization of the typed
     * request it builds, then {@code handle}, which executes that typed request.
     */
    <T extends io.lodestar.api.request.Scoped> RequestDispatcher add(
            String requestType, String failureType, RequestHandler.Parser<T> parse, RequestHandler.Typed<T> handle) {
        add(requestType, failureType, request -> {
            T parsed = parse.parse(request);
            checks.authorize(request, parsed);
            return handle.handle(parsed, request.call());
        });
        typed.add(requestType);
        return this;
    }

    /** The request types routed. */
    java.util.Set<String> types() {
        return java.util.Set.copyOf(routes.keySet());
    }

    /** The request types routed through a parser and a typed handler. */
    java.util.Set<String> typedTypes() {
        return java.util.Set.copyOf(typed);
    }

    /** Answers {@code payload}, counted under its type (an unknown type as "other") and outcome. */
    CompletableFuture<Payload> dispatch(Connection connection, Payload payload) {
        long start = System.nanoTime();
        String type = payload.getMetadata().getType();
        String counted = routes.containsKey(type) || "ServerCheckRequest".equals(type) ? type : "other";
        return answer(connection, payload, type).thenApply(reply -> {
            JsonNode code = reply.body().get("errorCode");
            metrics.grpcRequest(
                    counted, code == null || code.asInt() == 0 ? "ok" : code.asText(), System.nanoTime() - start);
            return PayloadCodec.encode(reply.type(), reply.body());
        });
    }

    /** The reply to {@code payload}; it never fails: a failure is answered as Nacos answers it. */
    private CompletableFuture<Reply> answer(Connection connection, Payload payload, String type) {
        if ("ServerCheckRequest".equals(type)) { // before any registration: how a client finds a live server
            return done(Reply.ok("ServerCheckResponse")
                    .with("connectionId", connection.id())
                    .withFlag("supportAbilityNegotiation", true));
        }
        if (!connection.registered() || connection.closed()) {
            return done(Reply.fail(ERROR_RESPONSE, ErrorMapping.GRPC_UNREGISTERED, "Connection is unregistered."));
        }
        connection.touch();
        Route route = routes.get(type);
        if (route == null) {
            return done(Reply.fail(
                    ERROR_RESPONSE,
                    ErrorMapping.GRPC_NO_HANDLER,
                    "RequestHandler Not Found: no request type '" + type + "'"));
        }
        ObjectNode body;
        try {
            body = PayloadCodec.body(payload);
        } catch (InvalidRequestException e) {
            return done(Reply.fail(ERROR_RESPONSE, ErrorMapping.GRPC_UNREADABLE, type + ": " + e.getMessage()));
        }
        GrpcRequest request =
                new GrpcRequest(connection, type, payload.getMetadata().getHeadersMap(), body);
        CompletableFuture<Reply> reply;
        try {
            checks.check(request);
            reply = route.handler().handle(request);
        } catch (Exception e) {
            reply = CompletableFuture.failedFuture(e);
        }
        if (!reply.isDone()) {
            reply = reply.whenCompleteAsync((ok, e) -> {}, answers);
        }
        return reply.handle((ok, e) -> {
                    if (e == null) {
                        return ok;
                    }
                    ErrorMapping.Grpc error = ErrorMapping.grpc(e, type, "gRPC " + request);
                    return Reply.fail(
                            route.failureType() == null ? ERROR_RESPONSE : route.failureType(),
                            error.code(),
                            error.message());
                })
                .thenApply(answered -> {
                    int code = answered.body().path("errorCode").asInt(0);
                    checks.completed(request, code == 0 ? 200 : code);
                    return answered;
                });
    }

    private static CompletableFuture<Reply> done(Reply reply) {
        return CompletableFuture.completedFuture(reply);
    }
}
