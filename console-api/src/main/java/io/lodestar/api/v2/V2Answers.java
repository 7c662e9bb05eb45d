package io.lodestar.api.v2;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.lodestar.api.http.ErrorMapping;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The Nacos v2 answer shape, {@code {"code","message","data"}}, shared by the v2 routes: success,
 * and every error as {@link ErrorMapping}'s table answers it in v2.
 */
final class V2Answers {
    static final int SUCCESS = 0;

    private V2Answers() {}

    /** Wraps a handler so that whatever it throws is answered in the v2 form. */
    static Handler v2(Handler handler) {
        return ctx -> {
            try {
                handler.handle(ctx);
            } catch (Exception e) {
                error(ctx, e);
            }
        };
    }

    /** Answers {@code outcome}'s value as success data, or its failure as a v2 error. */
    static void answer(Context ctx, CompletableFuture<?> outcome) {
        ctx.future(() -> outcome.handle((data, error) -> {
            if (error != null) {
                error(ctx, error);
            } else {
                result(ctx, 200, SUCCESS, "success", data);
            }
            return null;
        }));
    }

    static void error(Context ctx, Throwable e) {
        ErrorMapping.V2 m = ErrorMapping.v2(e, ctx);
        result(ctx, m.status(), m.code(), m.message(), m.data());
    }

    static void result(Context ctx, int status, int code, String message, Object data) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code);
        body.put("message", message);
        body.put("data", data);
        ctx.status(status).json(body);
    }
}
