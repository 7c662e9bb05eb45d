package io.lodestar.api.v1.naming;

import io.javalin.Javalin;
import io.lodestar.api.http.Params;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.NamingService;
import io.lodestar.naming.model.ServiceKey;

/**
 * {@code PUT /nacos/v1/ns/health/instance}: sets a persistent instance's health by hand, allowed
 * only where no probe owns it (its cluster's checker is NONE); 400 otherwise, 404 for an unknown
 * instance.
 */
public final class NamingHealthRoutes {
    private static final String PATH = InstanceRoutes.BASE + "/health/instance";

    private NamingHealthRoutes() {}

    public static void install(Javalin app, NamingService naming) {
        app.put(PATH, ctx -> {
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            String ip = NamingParams.required(q, "ip");
            int port = NamingParams.port(q);
            String cluster = NamingParams.cluster(q);
            // Nacos 1.x's older name for the flag is 'valid'
            Boolean healthy = NamingParams.optionalBool(q, "healthy");
            if (healthy == null) {
                healthy = NamingParams.optionalBool(q, "valid");
            }
            if (healthy == null) {
                throw new InvalidRequestException("healthy", "is required (true or false)");
            }
            boolean flag = healthy;
            ctx.future(() -> naming.setHealth(service, cluster, ip, port, flag).thenAccept(v -> ctx.result("ok")));
        });
    }
}
