package io.lodestar.api.v2;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Endpoint;
import io.lodestar.api.http.ErrorMapping;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The Nacos v2 answer shape, {@code {"code","message","data"}}, shared by the v2 routes: success,
 * and every error (bad input, a refused check, a failed write) as {@link ErrorMapping}'s table
 * answers it in v2.
 */
final class V2Answers {
    static final int SUCCESS = 0;

    private V2Answers() {}

    /** Wraps an endpoint (parse, check, handle) so that whatever it throws is answered in the v2 form. */
    static Endpoint v2(Endpoint endpoint) {
        return exchange -> {
            try {
                endpoint.handle(exchange);
            } catch (Exception e) {
                exchange.answer(error(e, exchange.operation()));
            }
        };
    }

    /** Answers {@code outcome}'s value as success data, or its failure as a v2 error. */
    static void answer(Answer answer, CompletableFuture<?> outcome, String request) {
        answer.answerWhenDone(outcome.handle((data, e) -> e != null ? error(e, request) : success(data)));
    }

    static Answer.Body success(Object data) {
        return result(200, SUCCESS, "success", data);
    }

    private static Answer.Body error(Throwable e, String request) {
        ErrorMapping.V2 m = ErrorMapping.v2(e, request);
        return result(m.status(), m.code(), m.message(), m.data());
    }

    private static Answer.Body result(int status, int code, String message, Object data) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code);
        body.put("message", message);
        body.put("data", data);
        return Answer.Body.json(status, body);
    }
}
