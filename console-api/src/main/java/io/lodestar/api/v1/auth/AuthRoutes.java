package io.lodestar.api.v1.auth;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.lodestar.api.auth.Auth;
import io.lodestar.api.auth.Grants;
import io.lodestar.api.http.Params;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Logging in, as Nacos's clients do it: {@code POST /nacos/v1/auth/users/login} (also at the
 * older clients' {@code /nacos/v1/auth/login} and 3.x's {@code /nacos/v3/auth/user/login}) with
 * {@code username} and {@code password} (query or form) answers {@code accessToken}, {@code
 * tokenTtl} (seconds), {@code globalAdmin} and {@code username}, and the token again as an {@code
 * Authorization: Bearer} header. A wrong name or password is a 403 that does not say which.
 *
 * <p>Users, at Nacos's {@code /nacos/v1/auth/users}: list ({@code GET}, names only, paged),
 * create ({@code POST username, password}), change a password ({@code PUT username, newPassword};
 * the admin, or the user itself) and delete ({@code DELETE username}; not the admin). All but the
 * password change take the admin.
 */
public final class AuthRoutes {
    public static final String USERS_PATH = "/nacos/v1/auth/users";
    public static final String ROLES_PATH = "/nacos/v1/auth/roles";
    public static final String PERMISSIONS_PATH = "/nacos/v1/auth/permissions";

    private AuthRoutes() {}

    public static void install(Javalin app, Auth auth) {
        Handler login = ctx -> {
            String username = required(ctx, "username");
            String password = required(ctx, "password");
            Auth.Login result =
                    auth.login(username, password, ctx.req().getRemoteAddr()).get();
            ctx.header("Authorization", "Bearer " + result.accessToken());
            ctx.json(result);
        };
        app.post(Auth.LOGIN_PATH, login);
        app.post(Auth.OLD_LOGIN_PATH, login);
        app.post(Auth.V3_LOGIN_PATH, login);

        app.get(USERS_PATH, ctx -> {
            page(
                    ctx,
                    auth.users().names().stream()
                            .map(n -> Map.of("username", n))
                            .toList());
        });
        app.post(USERS_PATH, ctx -> {
            String username = required(ctx, "username");
            if (!auth.users().create(username, required(ctx, "password"), false).get()) {
                throw new InvalidRequestException("username", "user '" + username + "' already exists");
            }
            ok(ctx, "create user ok!");
        });
        app.put(USERS_PATH, ctx -> {
            String username = required(ctx, "username");
            if (!auth.users()
                    .changePassword(username, required(ctx, "newPassword"))
                    .get()) {
                throw new NotFoundException("username", "user '" + username + "' not found");
            }
            ok(ctx, "update user ok!");
        });
        app.delete(USERS_PATH, ctx -> {
            String username = required(ctx, "username");
            if (username.equals(Auth.ADMIN)) {
                throw new InvalidRequestException("username", "the admin user '" + Auth.ADMIN + "' cannot be deleted");
            }
            if (!auth.users().delete(username).get()) {
                throw new NotFoundException("username", "user '" + username + "' not found");
            }
            ok(ctx, "delete user ok!");
        });
        installRoles(app, auth.grants());
    }

    private static void installRoles(Javalin app, Grants grants) {
        app.get(ROLES_PATH, ctx -> {
            String username = Params.get(ctx, "username");
            String role = Params.get(ctx, "role");
            page(
                    ctx,
                    grants.bindings().stream()
                            .filter(b -> blank(username) || b.username().equals(username))
                            .filter(b -> blank(role) || b.role().equals(role))
                            .map(b -> Map.of("role", b.role(), "username", b.username()))
                            .toList());
        });
        app.post(ROLES_PATH, ctx -> {
            String role = required(ctx, "role");
            String username = required(ctx, "username");
            if (!grants.bind(role, username).get()) {
                throw new InvalidRequestException("role", "user '" + username + "' already has role '" + role + "'");
            }
            ok(ctx, "add role ok!");
        });
        app.delete(ROLES_PATH, ctx -> {
            String role = required(ctx, "role");
            String username = Params.get(ctx, "username");
            if (!grants.unbind(role, blank(username) ? null : username).get()) {
                throw new NotFoundException(
                        "role",
                        "role '" + role + "' not found" + (blank(username) ? "" : " for user '" + username + "'"));
            }
            ok(ctx, "delete role of user " + (blank(username) ? "" : username) + " ok!");
        });
        app.get(PERMISSIONS_PATH, ctx -> {
            String role = Params.get(ctx, "role");
            page(
                    ctx,
                    grants.permissions(blank(role) ? null : role).stream()
                            .map(p -> Map.of("role", p.role(), "resource", p.resource(), "action", p.action()))
                            .toList());
        });
        app.post(PERMISSIONS_PATH, ctx -> {
            Grants.Permission p = permission(ctx);
            if (!grants.grant(p).get()) {
                throw new InvalidRequestException("resource", "role '" + p.role() + "' has this permission already");
            }
            ok(ctx, "add permission ok!");
        });
        app.delete(PERMISSIONS_PATH, ctx -> {
            Grants.Permission p = permission(ctx);
            if (!grants.revoke(p).get()) {
                throw new NotFoundException("resource", "role '" + p.role() + "' has no such permission");
            }
            ok(ctx, "delete permission ok!");
        });
    }

    /** The permission a grant or a revocation names: role, resource and action, each required. */
    private static Grants.Permission permission(Context ctx) {
        return new Grants.Permission(required(ctx, "role"), required(ctx, "resource"), required(ctx, "action"));
    }

    /** Nacos's page of items, as its console and clients read it ({@code pageNo}, {@code pageSize} from 1). */
    private static void page(Context ctx, List<?> all) {
        int pageNo = number(ctx, "pageNo", 1);
        int pageSize = number(ctx, "pageSize", 100);
        int from = (int) Math.min(all.size(), (long) (pageNo - 1) * pageSize);
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("totalCount", all.size());
        page.put("pageNumber", pageNo);
        page.put("pagesAvailable", (all.size() + pageSize - 1) / pageSize);
        page.put("pageItems", all.subList(from, Math.min(all.size(), from + pageSize)));
        ctx.json(page);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    /** Nacos's RestResult for a user change. */
    private static void ok(Context ctx, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", 200);
        body.put("message", message);
        body.put("data", null);
        ctx.json(body);
    }

    private static String required(Context ctx, String name) {
        String value = Params.get(ctx, name);
        if (value == null || value.isEmpty()) {
            throw InvalidRequestException.missing(name);
        }
        return value;
    }

    private static int number(Context ctx, String name, int absent) {
        String value = Params.get(ctx, name);
        if (value == null || value.isBlank()) {
            return absent;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 10_000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new InvalidRequestException(name, "must be a number from 1 to 10000, not '" + value + "'");
    }
}
