package io.lodestar.api.http;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.lodestar.api.request.Scoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;

/** A request Javalin routed, as an {@link Exchange}; its errors go to Javalin's exception handler ({@link ErrorMapping}). */
public final class JavalinExchange implements Exchange {
    /**
     * The request attribute holding the caller: the check's wrapper and the handler's are two
     * objects, and a WebSocket's handlers read the upgrade request's attributes.
     */
    public static final String CALLER = "lodestar.caller";

    /** The request attribute holding the operation, as {@code AccessRules} names it (see {@link #of}). */
    public static final String OPERATION = "lodestar.operation";

    /** The request attribute holding the typed request, for the audit line. */
    private static final String TYPED = "lodestar.typed";

    private final Context ctx;
    private final String operation;

    private JavalinExchange(Context ctx, String operation) {
        this.ctx = ctx;
        this.operation = operation;
    }

    /** A request Javalin matched to a route: its operation is the route's (HEAD is answered by GET's). */
    public static Exchange of(Context ctx) {
        String operation = ctx.attribute(OPERATION);
        if (operation == null) { // first seen in beforeMatched, where the matched endpoint's path is known
            String method =
                    ctx.method() == HandlerType.HEAD ? "GET" : ctx.method().name();
            String route = ctx.endpointHandlerPath();
            // Javalin names a request no route matched "*" (static files, the console's page routes;
            // a HEAD on a GET route's path too). Open for the console's files, but never on an API
            // path: there it is answered 404 or 405 as before the console existed (see unrouted)
            if ("*".equals(route) && isApiPath(ctx.path())) {
                route = ctx.path() + ' ' + UNROUTED;
            }
            operation = method + ' ' + route;
            ctx.attribute(OPERATION, operation);
        }
        return new JavalinExchange(ctx, operation);
    }

    private static final String UNROUTED = "(an API path no route serves)";

    /**
     * Whether {@code exchange} is a request on an API path that no route serves for its method (a
     * GET where only a POST is routed, a HEAD): never checked nor taken for a console page, but
     * answered 405 or 404 alike for every caller.
     */
    public static boolean unrouted(Exchange exchange) {
        return exchange.operation().endsWith(UNROUTED);
    }

    private static final java.util.List<String> API_PREFIXES =
            java.util.List.of("/nacos/", "/lodestar/", "/metrics", "/v1/", "/v2/", "/v3/");

    /** Whether {@code path} belongs to the API (Nacos's, Lodestar's own, metrics), never to the web console. */
    public static boolean isApiPath(String path) {
        return API_PREFIXES.stream().anyMatch(path::startsWith);
    }

    /** A WebSocket upgrade request. */
    public static Exchange upgrade(Context ctx) {
        return new JavalinExchange(ctx, "WS " + ctx.path());
    }

    /** {@code endpoint} as a Javalin handler. */
    public static io.javalin.http.Handler handler(Endpoint endpoint) {
        return ctx -> endpoint.handle(of(ctx));
    }

    @Override
    public Params params() {
        return Params.of(ctx);
    }

    @Override
    public io.javalin.http.UploadedFile uploadedFile(String name) {
        String contentType = ctx.contentType();
        return contentType != null
                        && contentType.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/form-data")
                ? ctx.uploadedFile(name)
                : null;
    }

    @Override
    public String pathParam(String name) {
        return ctx.pathParamMap().get(name);
    }

    @Override
    public String header(String name) {
        return ctx.header(name);
    }

    @Override
    public String remoteAddr() {
        return ctx.req().getRemoteAddr();
    }

    @Override
    public String operation() {
        return operation;
    }

    @Override
    public String caller() {
        return ctx.attribute(CALLER);
    }

    @Override
    public void caller(String username) {
        ctx.attribute(CALLER, username);
    }

    @Override
    public Scoped typed() {
        return ctx.attribute(TYPED);
    }

    @Override
    public void typed(Scoped request) {
        ctx.attribute(TYPED, request);
    }

    @Override
    public Answer answerHeader(String name, String value) {
        ctx.header(name, value);
        return this;
    }

    @Override
    public void answer(Body body) {
        ctx.status(body.status()).contentType(body.contentType()).result(body.bytes());
    }

    @Override
    public void answerStream(String contentType, BodyWriter body) {
        ctx.status(200).contentType(contentType);
        try {
            body.writeTo(ctx.outputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void answerWhenDone(CompletableFuture<Body> body) {
        ctx.future(() -> WebThreads.answerOn(ctx.req(), body).thenAccept(this::answer));
    }
}
