package io.lodestar.api.v1.naming;

import static io.javalin.http.HandlerType.PUT;

import io.lodestar.api.http.Routes;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.service.NamingService;

/**
 * {@code PUT /nacos/v1/ns/health/instance}: sets a persistent instance's health by hand, allowed
 * only where no probe owns it (its cluster's checker is NONE); 400 otherwise, 404 for an unknown
 * instance.
 */
public final class NamingHealthRoutes {
    private static final String PATH = InstanceRoutes.BASE + "/health/instance";

    private NamingHealthRoutes() {}

    public static void install(Routes routes, NamingService naming) {
        routes.add(PUT, PATH, NamingV1Requests::health, (op, answer) -> {
            InstanceAddress a = op.address();
            answer.answerWhenDone(
                    "text/plain",
                    naming.setHealth(op.service(), a.cluster(), a.ip(), a.port(), op.healthy())
                            .thenApply(v -> "ok"));
        });
    }
}
