package io.lodestar.api.v1.naming;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.naming.NamingService;
import io.lodestar.naming.ServiceNotFoundException;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code /nacos/v1/ns/service}: create, update, delete and read a service definition, and list a
 * group's services. Nacos's {@code selector} (label selectors over a CMDB) is accepted and
 * ignored: Lodestar has no CMDB, so every instance is listed to every client.
 */
public final class ServiceRoutes {
    private static final String PATH = InstanceRoutes.BASE + "/service";
    /** Page size when the request names none (the 1.x client always does). */
    static final int DEFAULT_PAGE_SIZE = 10;

    private ServiceRoutes() {}

    public static void install(Javalin app, NamingService naming, PersistentHealthChecks health) {
        app.post(PATH, ctx -> {
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            ServiceSpec spec =
                    new ServiceSpec(NamingParams.number(q, "protectThreshold", 0), NamingParams.metadata(q), Map.of());
            ctx.future(() -> naming.createService(service, spec).thenAccept(v -> ctx.result("ok")));
        });
        app.put(PATH, ctx -> {
            Params q = Params.of(ctx);
            // as in Nacos, an absent protectThreshold or metadata resets it
            ServiceKey service = NamingParams.service(q);
            double threshold = NamingParams.number(q, "protectThreshold", 0);
            Map<String, String> metadata = NamingParams.metadata(q);
            ctx.future(() -> naming.updateService(service, threshold, metadata).thenAccept(v -> ctx.result("ok")));
        });
        app.delete(PATH, ctx -> {
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            ctx.future(() -> naming.deleteService(service).thenAccept(v -> ctx.result("ok")));
        });
        app.get(PATH, ctx -> {
            Params q = Params.of(ctx);
            ServiceKey key = NamingParams.service(q);
            Service service = naming.service(key).orElseThrow(() -> new ServiceNotFoundException(key));
            ctx.json(NamingJson.service(
                    service,
                    naming.list(key, Set.of(), false).hosts(),
                    (instance, checker) -> health.notProbedBecause(key, instance, checker)));
        });
        app.get(PATH + "/list", ctx -> list(ctx, naming));
    }

    private static void list(Context ctx, NamingService naming) {
        Params q = Params.of(ctx);
        int pageNo = NamingParams.integer(q, "pageNo", 1, 1, Integer.MAX_VALUE);
        int pageSize = NamingParams.integer(q, "pageSize", DEFAULT_PAGE_SIZE, 1, Integer.MAX_VALUE);
        ServicePage page = naming.listServices(q.get("namespaceId"), q.get("groupName"), pageNo, pageSize);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("count", page.count());
        body.put("doms", page.names());
        ctx.json(body);
    }
}
