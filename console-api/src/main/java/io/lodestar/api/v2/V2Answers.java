package io.lodestar.api.v2;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.lodestar.api.http.ErrorMapping;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The Nacos v2 answer shape, {@code {"code","message","data"}}, shared by the v2 routes: success,
 * and every error mapped from the same {@link ErrorMapping} statuses as v1 to Nacos 2's codes.
 */
final class V2Answers {
    static final int SUCCESS = 0;
    static final int PARAMETER_MISSING = 10000;
    static final int PARAMETER_VALIDATE_ERROR = 20002;
    static final int RESOURCE_NOT_FOUND = 20004;
    static final int RESOURCE_CONFLICT = 20005;
    static final int SERVER_ERROR = 30000;

    private V2Answers() {}

    /** A required parameter that was not sent (Nacos 2: PARAMETER_MISSING). */
    static final class MissingParameter extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String name;

        MissingParameter(String name) {
            super(name, null, false, false);
            this.name = name;
        }
    }

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
        if (e instanceof MissingParameter missing) {
            result(ctx, 400, PARAMETER_MISSING, "parameter missing",
                    "Required parameter '" + missing.name + "' type String is not present");
            return;
        }
        ErrorMapping.Mapped m = ErrorMapping.map(e, ctx);
        String message = m.message().startsWith("caused: ") ? m.message().substring("caused: ".length()) : m.message();
        if (m.status() == 404) {
            result(ctx, 404, RESOURCE_NOT_FOUND, "resource not found", message);
        } else if (m.status() == 409) {
            result(ctx, 409, RESOURCE_CONFLICT, "resource conflict", message);
        } else if (m.status() >= 400 && m.status() < 500) {
            result(ctx, m.status(), PARAMETER_VALIDATE_ERROR, "parameter validate error", message);
        } else {
            result(ctx, m.status(), SERVER_ERROR, "server error", message);
        }
    }

    static void result(Context ctx, int status, int code, String message, Object data) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code);
        body.put("message", message);
        body.put("data", data);
        ctx.status(status).json(body);
    }
}
