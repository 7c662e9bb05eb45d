package io.lodestar.api.grpc;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.Names;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The gRPC connections of this node, at Nacos's paths for them: list them, and send clients to
 * other servers (a loaded node, a node about to be drained). {@code reloadCurrent} keeps at most
 * {@code count} connections here and sends the rest elsewhere with {@code ConnectResetRequest};
 * {@code reloadClient} sends the one with {@code connectionId}. Each goes to {@code
 * redirectAddress} if given, else to another of the servers its client was given.
 *
 * <p>Both change where clients connect, so they are POST only (Nacos 2.x serves them as GET too,
 * which a page in an operator's browser could trigger with an image tag), and {@code
 * redirectAddress} must be a member's HTTP address as the cluster knows it: sending clients to any
 * address would hand them, and their credentials, to whoever runs it.
 */
public final class ConnectionRoutes {
    private ConnectionRoutes() {}

    /** {@code memberHttpAddresses}: the members' HTTP addresses ({@code host:port}) as the cluster knows them now. */
    public static void install(Javalin app, GrpcApi grpc, Supplier<Set<String>> memberHttpAddresses) {
        app.get("/nacos/v2/core/loader/current", ctx -> ctx.json(grpc.describeConnections()));
        Handler reload = ctx -> {
            int count = count(ctx);
            GrpcApi.Redirect redirect = redirect(ctx, memberHttpAddresses);
            grpc.shed(count, redirect);
            ctx.result("success");
        };
        app.post("/nacos/v2/core/loader/reloadCurrent", reload);
        Handler reloadOne = ctx -> {
            String id = Params.get(ctx, "connectionId");
            if (id == null || id.isBlank()) {
                throw InvalidRequestException.missing("connectionId");
            }
            GrpcApi.Redirect redirect = redirect(ctx, memberHttpAddresses);
            if (!grpc.sendElsewhere(id, redirect)) {
                throw new NotFoundException("connectionId", "no connection " + id + " is set up here");
            }
            ctx.result("success");
        };
        app.post("/nacos/v2/core/loader/reloadClient", reloadOne);
    }

    /** {@code redirectAddress}, or null when absent: where clients are sent rather than to a server they know. */
    private static GrpcApi.Redirect redirect(Context ctx, Supplier<Set<String>> memberHttpAddresses) {
        String redirect = Params.get(ctx, "redirectAddress");
        if (redirect == null || redirect.isBlank()) {
            return null;
        }
        int colon = redirect.lastIndexOf(':');
        int port = colon > 0 ? port(redirect.substring(colon + 1)) : -1;
        if (port < 1) {
            throw new InvalidRequestException(
                    "redirectAddress", "must be another server's HTTP address host:port, not '" + redirect + "'");
        }
        if (!memberHttpAddresses.get().contains(redirect.trim())) {
            throw new InvalidRequestException(
                    "redirectAddress",
                    "'" + Names.shorten(redirect) + "' is not the HTTP address of a member of this cluster");
        }
        return new GrpcApi.Redirect(redirect.substring(0, colon), port);
    }

    private static int count(Context ctx) {
        String count = Params.get(ctx, "count");
        if (count == null || count.isBlank()) {
            throw InvalidRequestException.missing("count");
        }
        try {
            int n = Integer.parseInt(count.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new InvalidRequestException(
                "count", "must be the number of connections to keep (0 or more), not '" + count + "'");
    }

    private static int port(String s) {
        try {
            int p = Integer.parseInt(s);
            return p <= 65_535 ? p : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
