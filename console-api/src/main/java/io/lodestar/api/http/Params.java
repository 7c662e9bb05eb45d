package io.lodestar.api.http;

import io.javalin.http.Context;

/** Request parameters as Nacos reads them: from the form body or the query string. */
public final class Params {
    private Params() {}

    /** The parameter from the form body, else the query string, else null. */
    public static String get(Context ctx, String name) {
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
