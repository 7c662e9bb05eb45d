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
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where errors become HTTP status codes: a client can tell a bad request (400, with
 * the field), a cluster that cannot take writes now (503, nothing written) and a write whose
 * outcome is unknown (504, it may have been applied).
 */
public final class ErrorMapping {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapping.class);

    private ErrorMapping() {}

    static void install(Javalin app) {
        app.exception(CompletionException.class, (e, ctx) -> handle(e.getCause() == null ? e : e.getCause(), ctx));
        app.exception(Exception.class, (e, ctx) -> handle(e, ctx));
    }

    static void handle(Throwable e, Context ctx) {
        if (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof HttpResponseException h) {
            ctx.status(h.getStatus()).result(h.getMessage());
        } else if (e instanceof InvalidRequestException bad) {
            ctx.status(400).result("caused: " + bad.getMessage());
        } else if (e instanceof ConfigConflictException conflict) {
            ctx.status(409).result(conflict.getMessage());
        } else if (e instanceof NamespaceNotEmptyException notEmpty) {
            ctx.status(409).result("caused: namespaceId: " + notEmpty.getMessage());
        } else if (e instanceof NoLeaderException || e instanceof StoreUnavailableException) {
            ctx.status(503).result(e.getMessage());
        } else if (e instanceof KvException kv && kv.outcomeUnknown()) {
            ctx.status(504).result("write outcome unknown: " + kv.getMessage());
        } else {
            LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
            ctx.status(500).result("internal error: " + e);
        }
    }
}
