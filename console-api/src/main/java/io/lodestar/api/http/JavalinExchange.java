package io.lodestar.api.http;

import io.javalin.http.Context;
import java.util.concurrent.CompletableFuture;

/** A request Javalin routed, as an {@link Exchange}; its errors go to Javalin's exception handler ({@link ErrorMapping}). */
public final class JavalinExchange implements Exchange {
    private final Context ctx;

    private JavalinExchange(Context ctx) {
        this.ctx = ctx;
    }

    public static Exchange of(Context ctx) {
        return new JavalinExchange(ctx);
    }

    /** {@code endpoint} as a Javalin handler. */
    public static io.javalin.http.Handler handler(Endpoint endpoint) {
        return ctx -> endpoint.handle(new JavalinExchange(ctx));
    }

    @Override
    public Params params() {
        return Params.of(ctx);
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
        return ctx.req().getRequestURI();
    }

    @Override
    public Exchange answerHeader(String name, String value) {
        ctx.header(name, value);
        return this;
    }

    @Override
    public void answer(String contentType, byte[] body) {
        ctx.contentType(contentType).result(body);
    }

    @Override
    public void answer(String contentType, String body) {
        ctx.contentType(contentType).result(body);
    }

    @Override
    public void answerWhenDone(String contentType, CompletableFuture<String> body) {
        ctx.future(() -> body.thenAccept(text -> ctx.contentType(contentType).result(text)));
    }
}
