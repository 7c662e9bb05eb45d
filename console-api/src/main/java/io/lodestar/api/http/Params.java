package io.lodestar.api.http;

import io.javalin.http.Context;
import io.lodestar.api.request.Fields;

/**
 * Request parameters by name, as Nacos reads them: from the form body, else the query string. A
 * source, not a {@link Context}, so the same parsing serves Javalin's routes and the handlers in
 * front of them.
 */
@FunctionalInterface
public interface Params extends Fields {
    /** The request's parameters: from the form body, else the query string. */
    static Params of(Context ctx) {
        return name -> get(ctx, name);
    }

    /** The parameter from the form body, else the query string, else null. */
    static String get(Context ctx, String name) {
        String contentType = ctx.contentType();
        if (contentType != null && contentType.startsWith("application/x-www-form-urlencoded")) {
            String form = ctx.formParam(name);
            if (form != null) {
                return form;
            }
        }
        return ctx.queryParam(name);
    }
}
