package io.lodestar.api.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.lodestar.error.ErrorKind;
import io.lodestar.error.Failures;
import io.lodestar.error.LodestarException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one table where errors become answers: each {@link ErrorKind} has its v1 status and body and
 * its v2 code. A client can tell a bad request (400, naming the field), a missing resource (404), a
 * lost compare (409), a cluster that cannot take writes now (503, nothing written) and a write whose
 * outcome is unknown (504, it may have been applied). Anything else is a bug: logged with the
 * request, answered 500.
 */
public final class ErrorMapping {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapping.class);

    /** Nacos 2's codes (its {@code ErrorCode}) for the v2 answers. */
    static final int V2_PARAMETER_MISSING = 10000;

    static final int V2_ACCESS_DENIED = 10001;

    static final int V2_PARAMETER_VALIDATE_ERROR = 20002;
    static final int V2_RESOURCE_NOT_FOUND = 20004;
    static final int V2_RESOURCE_CONFLICT = 20005;
    static final int V2_SERVER_ERROR = 30000;
    /** Nacos's own code for a request refused by a limit (its NacosException.OVER_THRESHOLD). */
    static final int V2_OVER_THRESHOLD = 503;

    /** Nacos's gRPC error codes ({@code NacosException}) for an {@code ErrorResponse} or a typed failure. */
    static final int GRPC_INVALID_PARAM = 400;
    /** Nacos's NO_RIGHT: the client logs in again. */
    static final int GRPC_NO_RIGHT = 403;

    static final int GRPC_NOT_FOUND = 404;
    static final int GRPC_CONFLICT = 409;
    static final int GRPC_SERVER_ERROR = 500;
    static final int GRPC_OVER_THRESHOLD = 503;

    /** Nacos's codes for the gRPC failures that happen before a handler runs. */
    public static final int GRPC_UNREGISTERED = 301;

    public static final int GRPC_NO_HANDLER = 302;
    public static final int GRPC_UNREADABLE = 502;

    /**
     * Where Nacos answers one request type's failure with a code and words of its own, which its
     * 2.x client acts on: a missing config (300: the client clears its snapshot) and a lost
     * compare-and-publish.
     */
    private static final Map<String, Map<ErrorKind, Grpc>> GRPC_BY_TYPE = Map.of(
            "ConfigQueryRequest", Map.of(ErrorKind.NOT_FOUND, new Grpc(300, "config data not exist")),
            "ConfigPublishRequest",
                    Map.of(ErrorKind.CONFLICT, new Grpc(500, "Cas publish fail, server md5 may have changed.")));

    /**
     * How one kind is answered: v1 status and body (Nacos's "caused: " form where Nacos uses it), v2
     * code and message, and the gRPC error code.
     */
    private record Row(int status, Function<String, String> v1Body, int v2Code, String v2Message, int grpcCode) {}

    private static final Map<ErrorKind, Row> TABLE = new EnumMap<>(Map.of(
            ErrorKind.INVALID,
                    new Row(
                            400,
                            m -> "caused: " + m,
                            V2_PARAMETER_VALIDATE_ERROR,
                            "parameter validate error",
                            GRPC_INVALID_PARAM),
            ErrorKind.MISSING,
                    new Row(400, m -> "caused: " + m, V2_PARAMETER_MISSING, "parameter missing", GRPC_INVALID_PARAM),
            // a service that exists, is missing or still has instances: Nacos answers each with 400
            ErrorKind.REFUSED,
                    new Row(
                            400,
                            m -> "caused: " + m,
                            V2_PARAMETER_VALIDATE_ERROR,
                            "parameter validate error",
                            GRPC_INVALID_PARAM),
            // Nacos answers a missing, bad or expired token and a failed login with 403
            ErrorKind.UNAUTHENTICATED, new Row(403, m -> m, V2_ACCESS_DENIED, "access denied", GRPC_NO_RIGHT),
            ErrorKind.FORBIDDEN, new Row(403, m -> m, V2_ACCESS_DENIED, "access denied", GRPC_NO_RIGHT),
            // as Nacos's "config data not exist" + newline
            ErrorKind.NOT_FOUND,
                    new Row(404, m -> m + "\n", V2_RESOURCE_NOT_FOUND, "resource not found", GRPC_NOT_FOUND),
            ErrorKind.CONFLICT, new Row(409, m -> m, V2_RESOURCE_CONFLICT, "resource conflict", GRPC_CONFLICT),
            // a gRPC client retries an error response within its timeout, then fails over
            ErrorKind.UNAVAILABLE, new Row(503, m -> m, V2_SERVER_ERROR, "server error", GRPC_OVER_THRESHOLD),
            ErrorKind.OUTCOME_UNKNOWN,
                    new Row(
                            504,
                            m -> "write outcome unknown: " + m,
                            V2_SERVER_ERROR,
                            "server error",
                            GRPC_SERVER_ERROR)));

    static {
        // past a limit: a gRPC client treats Nacos's OVER_THRESHOLD as "try again later"
        TABLE.put(
                ErrorKind.TOO_LARGE,
                new Row(413, m -> m, V2_PARAMETER_VALIDATE_ERROR, "parameter validate error", GRPC_INVALID_PARAM));
        TABLE.put(ErrorKind.TOO_MANY, new Row(429, m -> m, V2_OVER_THRESHOLD, "over threshold", GRPC_OVER_THRESHOLD));
    }

    /** An error as the v1 API answers it: the status and the plain-text body. */
    public record Mapped(int status, String message) {}

    /** An error as the v2 API answers it: the status, and {@code {"code","message","data"}}. */
    public record V2(int status, int code, String message, String data) {}

    /** An error as the gRPC API answers it: Nacos's error code and the message. */
    public record Grpc(int code, String message) {}

    private ErrorMapping() {}

    public static void install(Javalin app) {
        app.exception(Exception.class, (e, ctx) -> {
            Mapped m = map(e, ctx);
            ctx.status(m.status()).result(m.message());
        });
    }

    /** The v1 status and body for {@code e}; an unexpected error is logged with the request it failed. */
    public static Mapped map(Throwable e, Context ctx) {
        return map(e, ctx.method() + " " + ctx.path());
    }

    /** As {@link #map(Throwable, Context)}, naming the failed request as {@code request} ("METHOD path") in the log. */
    public static Mapped map(Throwable e, String request) {
        Throwable cause = known(e);
        if (cause instanceof LodestarException known) {
            return new Mapped(
                    TABLE.get(known.kind()).status(),
                    TABLE.get(known.kind()).v1Body().apply(known.getMessage()));
        }
        if (cause instanceof HttpResponseException h) { // Javalin's own: a body too large, a method not allowed
            return new Mapped(h.getStatus(), h.getMessage());
        }
        return new Mapped(500, unexpected(cause, request));
    }

    /** The v2 answer for {@code e}; an unexpected error is logged naming {@code request} ("METHOD path"). */
    public static V2 v2(Throwable e, String request) {
        Throwable cause = known(e);
        if (cause instanceof LodestarException known) {
            Row row = TABLE.get(known.kind());
            String data = known.kind() == ErrorKind.MISSING
                    ? "Required parameter '" + known.subject() + "' type String is not present" // Nacos's text
                    : known.getMessage();
            return new V2(row.status(), row.v2Code(), row.v2Message(), data);
        }
        if (cause instanceof HttpResponseException h) {
            return new V2(
                    h.getStatus(),
                    h.getStatus() < 500 ? V2_PARAMETER_VALIDATE_ERROR : V2_SERVER_ERROR,
                    h.getStatus() < 500 ? "parameter validate error" : "server error",
                    h.getMessage());
        }
        return new V2(500, V2_SERVER_ERROR, "server error", unexpected(cause, request));
    }

    /**
     * The gRPC error code and message for {@code e} failing a request of {@code requestType}; an
     * unexpected error is logged naming {@code request}.
     */
    public static Grpc grpc(Throwable e, String requestType, String request) {
        Throwable cause = Failures.cause(e);
        if (cause instanceof LodestarException known) {
            Grpc own = GRPC_BY_TYPE.getOrDefault(requestType, Map.of()).get(known.kind());
            return own != null ? own : new Grpc(TABLE.get(known.kind()).grpcCode(), known.getMessage());
        }
        return new Grpc(GRPC_SERVER_ERROR, unexpected(cause, request));
    }

    /**
     * Answers {@code e} on a servlet response as the v1 API answers it: for the bounds that refuse a
     * request before any route runs.
     */
    static void answer(Throwable e, org.eclipse.jetty.server.Request base, HttpServletResponse resp)
            throws IOException {
        Mapped m = map(e, base.getMethod() + " " + base.getRequestURI());
        base.setHandled(true);
        resp.setStatus(m.status());
        resp.setContentType("text/plain;charset=utf-8");
        resp.getOutputStream().write(m.message().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The failure a client is to be answered by: the first {@link LodestarException} among the
     * causes (the server's reading of a body wraps a limit's refusal in an IOException), else the
     * failure itself.
     */
    private static Throwable known(Throwable e) {
        Throwable cause = Failures.cause(e);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof LodestarException) {
                return t;
            }
        }
        return cause;
    }

    /**
     * Logs an error no request should meet, under an id the answer carries instead of the error
     * itself: an exception's text can name files, classes, addresses or stored values, none of which
     * is the client's to read.
     */
    private static String unexpected(Throwable e, String request) {
        String id = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        LOG.error("{} failed (error id {})", request, id, e);
        return "internal error " + id + ": the server log has its detail under that id";
    }
}
