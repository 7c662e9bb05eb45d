package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.Names;
import io.lodestar.config.namespace.Namespace;
import io.lodestar.config.namespace.NamespaceService;
import io.lodestar.config.namespace.NamespaceUsage;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code /nacos/v1/console/namespaces} with Nacos 1.4/2.x bodies: list, detail ({@code show=all}),
 * id check ({@code checkNamespaceIdExist=true}), create, edit, delete.
 */
public final class NamespaceRoutes {
    private static final String PATH = "/nacos/v1/console/namespaces";
    /** Nacos has no quotas to enforce; it reports this fixed value and so do we. */
    private static final int QUOTA = 200;

    private static final int TYPE_PUBLIC = 0;
    private static final int TYPE_CUSTOM = 2;

    private NamespaceRoutes() {}

    /** {@code serviceCounts}: the services of each namespace asked, by canonical id (the registry's counts). */
    public static void install(
            Javalin app, NamespaceService namespaces, Function<Collection<String>, Map<String, Long>> serviceCounts) {
        app.get(PATH, ctx -> get(ctx, namespaces, serviceCounts));
        app.post(PATH, ctx -> {
            String id = Params.get(ctx, "customNamespaceId");
            String name = Params.get(ctx, "namespaceName");
            String desc = Params.get(ctx, "namespaceDesc");
            ctx.future(() -> namespaces.create(id, name, desc).thenAccept(ctx::json));
        });
        app.put(PATH, ctx -> {
            String id = Params.get(ctx, "namespace");
            String name = Params.get(ctx, "namespaceShowName");
            String desc = Params.get(ctx, "namespaceDesc");
            ctx.future(() -> namespaces.update(id, name, desc).thenAccept(ctx::json));
        });
        app.delete(PATH, ctx -> {
            String id = Params.get(ctx, "namespaceId");
            ctx.future(() -> namespaces.delete(id).thenAccept(ctx::json));
        });
    }

    private static void get(
            Context ctx, NamespaceService namespaces, Function<Collection<String>, Map<String, Long>> serviceCounts) {
        if ("true".equals(Params.get(ctx, "checkNamespaceIdExist"))) {
            ctx.json(namespaces.exists(Params.get(ctx, "customNamespaceId")));
        } else if ("all".equals(Params.get(ctx, "show"))) {
            String id = Params.get(ctx, "namespaceId");
            if (id == null) {
                throw new InvalidRequestException("namespaceId", "is required");
            }
            NamespaceUsage usage = namespaces.get(id);
            if (usage == null) {
                throw new NotFoundException("namespaceId", "namespace '" + id + "' does not exist");
            }
            Map<String, Object> body = body(usage, serviceCounts.apply(List.of(id(usage))));
            if (usage.namespace().isPublic()) {
                body.put("namespaceShowName", "Public"); // Nacos's detail capitalises it; its list does not
            }
            ctx.json(body);
        } else {
            List<NamespaceUsage> all = namespaces.list();
            Map<String, Long> services =
                    serviceCounts.apply(all.stream().map(NamespaceRoutes::id).toList());
            List<Map<String, Object>> data =
                    all.stream().map(u -> body(u, services)).toList();
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("code", 200);
            result.put("message", null);
            result.put("data", data);
            ctx.json(result);
        }
    }

    private static String id(NamespaceUsage usage) {
        return Names.canonical(usage.namespace().id());
    }

    private static Map<String, Object> body(NamespaceUsage usage, Map<String, Long> serviceCounts) {
        Namespace ns = usage.namespace();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("namespace", ns.id());
        m.put("namespaceShowName", ns.name());
        m.put("namespaceDesc", ns.desc());
        m.put("quota", QUOTA);
        m.put("configCount", usage.configCount());
        m.put("serviceCount", serviceCounts.getOrDefault(id(usage), 0L));
        m.put("type", ns.isPublic() ? TYPE_PUBLIC : TYPE_CUSTOM);
        return m;
    }
}
