package io.lodestar.api.v1.auth;

import io.javalin.Javalin;
import io.javalin.http.Handler;
import io.lodestar.api.auth.Auth;
import io.lodestar.api.http.Params;
import io.lodestar.error.InvalidRequestException;

/**
 * Logging in, as Nacos's clients do it: {@code POST /nacos/v1/auth/users/login} (also at the
 * older clients' {@code /nacos/v1/auth/login} and 3.x's {@code /nacos/v3/auth/user/login}) with {@code username} and {@code password} (query or form) answers
 * {@code accessToken}, {@code tokenTtl} (seconds), {@code globalAdmin} and {@code username}, and the
 * token again as an {@code Authorization: Bearer} header. A wrong name or password is a 403 that
 * does not say which.
 */
public final class AuthRoutes {
    private AuthRoutes() {}

    public static void install(Javalin app, Auth auth) {
        Handler login = ctx -> {
            String username = Params.get(ctx, "username");
            String password = Params.get(ctx, "password");
            if (username == null || username.isEmpty()) {
                throw InvalidRequestException.missing("username");
            }
            if (password == null || password.isEmpty()) {
                throw InvalidRequestException.missing("password");
            }
            Auth.Login result =
                    auth.login(username, password, ctx.req().getRemoteAddr()).get();
            ctx.header("Authorization", "Bearer " + result.accessToken());
            ctx.json(result);
        };
        app.post(Auth.LOGIN_PATH, login);
        app.post(Auth.OLD_LOGIN_PATH, login);
        app.post(Auth.V3_LOGIN_PATH, login);
    }
}
