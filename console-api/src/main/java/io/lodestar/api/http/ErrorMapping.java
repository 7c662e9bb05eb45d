package io.lodestar.api.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.lodestar.config.ConfigConflictException;
import io.lodestar.config.namespace.NamespaceNotEmptyException;
import io.lodestar.kv.InvalidRequestException;
import io.lodestar.kv.KvException;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.NamingException;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where errors become HTTP status codes: a client can tell a bad request (400, with
 * the field, or a naming refusal such as an unknown service), a missing instance (404), a cluster
 * that cannot take writes now (503, nothing written) and a write whose outcome is unknown (504, it
 * may have been applied).
 */
public final class ErrorMapping {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapping.class);

    /** An error as the v1 API answers it: the status and the plain-text body. */
    public record Mapped(int status, String message) {}

    private ErrorMapping() {}

    static void install(Javalin app) {
        app.exception(CompletionException.class, (e, ctx) -> handle(e.getCause() == null ? e : e.getCause(), ctx));
        app.exception(Exception.class, (e, ctx) -> handle(e, ctx));
    }

    static void handle(Throwable e, Context ctx) {
        Mapped m = map(e, ctx);
        ctx.status(m.status()).result(m.message());
    }

    /**
     * The status and body for {@code e} (unwrapped from a {@link CompletionException}); an
     * unexpected error is logged with the request it failed and becomes 500.
     */
    public static Mapped map(Throwable e, Context ctx) {
        return map(e, ctx.method() + " " + ctx.path());
    }

    /** As {@link #map(Throwable, Context)}, naming the failed request as {@code request} ("METHOD path") in the log. */
    public static Mapped map(Throwable e, String request) {
        if (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof HttpResponseException h) {
            return new Mapped(h.getStatus(), h.getMessage());
        } else if (e instanceof InvalidRequestException bad) {
            return new Mapped(400, "caused: " + bad.getMessage());
        } else if (e instanceof ConfigConflictException conflict) {
            return new Mapped(409, conflict.getMessage());
        } else if (e instanceof NamespaceNotEmptyException notEmpty) {
            return new Mapped(409, "caused: namespaceId: " + notEmpty.getMessage());
        } else if (e instanceof InstanceNotFoundException missing) {
            return new Mapped(404, "caused: " + missing.getMessage());
        } else if (e instanceof NamingException refused) {
            // a service that exists, is missing or still has instances, a health flag a probe owns:
            // Nacos answers each with 400; nothing was written
            return new Mapped(400, "caused: " + refused.getMessage());
        } else if (e instanceof NoLeaderException || e instanceof StoreUnavailableException) {
            return new Mapped(503, e.getMessage());
        } else if (e instanceof KvException kv && kv.outcomeUnknown()) {
            return new Mapped(504, "write outcome unknown: " + kv.getMessage());
        }
        LOG.error("{} failed", request, e);
        return new Mapped(500, "internal error: " + e);
    }
}
