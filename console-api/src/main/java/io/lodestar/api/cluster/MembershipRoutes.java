package io.lodestar.api.cluster;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Membership administration ({@code lodestar cluster ...} calls these): add or remove a member,
 * hand leadership to a member. Any node takes them; each answers once the group has committed the
 * change (membership) or accepted it (transfer), with the members this node then knows.
 *
 * <p>Like every other write, these are open to whoever reaches the HTTP port while {@code --auth}
 * is off; bind {@code --host} to an interface only operators reach.
 */
public final class MembershipRoutes {
    private MembershipRoutes() {}

    public static void install(Javalin app, KvStore store) {
        app.post(
                "/lodestar/v1/cluster/members",
                ctx -> answer(ctx, store, store.admin().addMember(address(ctx))));
        app.delete(
                "/lodestar/v1/cluster/members",
                ctx -> answer(ctx, store, store.admin().removeMember(address(ctx))));
        app.post(
                "/lodestar/v1/cluster/leader",
                ctx -> answer(ctx, store, store.admin().transferLeadership(address(ctx))));
    }

    private static String address(Context ctx) {
        String address = Params.get(ctx, "address");
        if (address == null || address.isBlank()) {
            throw new InvalidRequestException("address", "is required (host:raftPort)");
        }
        return address;
    }

    private static void answer(Context ctx, KvStore store, CompletableFuture<Void> change) {
        ctx.future(() -> change.thenAccept(v -> ctx.json(Map.of(
                "members",
                store.cluster().members().stream().map(m -> m.address()).toList()))));
    }
}
