package io.lodestar.api.v2;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.javalin.http.HandlerType.PUT;
import static io.lodestar.api.v2.V2Answers.answer;

import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.http.ErrorMapping;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.NamingOp;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /nacos/v2/ns/instance} and {@code /nacos/v2/ns/instance/list}: the Nacos 2.x open API for
 * instances, over the same fields and rules as v1. Every answer is Nacos's {@code Result}
 * ({@code {"code","message","data"}}, codes as in {@link ConfigV2Routes}); the status of an error
 * is the one v1 answers ({@link ErrorMapping}), its code follows from it. The list carries no UDP
 * subscription (v2 clients use gRPC push).
 */
public final class NamingV2Routes {
    private static final String PATH = "/nacos/v2/ns/instance";

    private NamingV2Routes() {}

    public static void install(Routes routes, NamingService naming) {
        routes.add(
                POST,
                PATH,
                V2Requests::register,
                (op, answer) -> answer(
                        answer, naming.register(op.service(), op.instance()).thenApply(v -> "ok"), "POST " + PATH),
                V2Answers::v2);
        routes.add(
                DELETE,
                PATH,
                V2Requests::deregister,
                (op, answer) -> answer(answer, deregister(naming, op).thenApply(v -> "ok"), "DELETE " + PATH),
                V2Answers::v2);
        routes.add(
                PUT,
                PATH,
                V2Requests::register,
                (op, answer) -> answer(
                        answer, naming.update(op.service(), op.instance()).thenApply(v -> "ok"), "PUT " + PATH),
                V2Answers::v2);
        routes.add(
                GET,
                PATH,
                V2Requests::instance,
                (op, answer) -> answer.answer(V2Answers.success(detail(naming, op))),
                V2Answers::v2);
        routes.add(
                GET,
                PATH + "/list",
                V2Requests::list,
                (op, answer) -> answer.answer(V2Answers.success(NamingJson.list(
                        naming.list(op.service(), op.clusterFilter(), op.healthyOnly()), op.clusters()))),
                V2Answers::v2);
    }

    static java.util.concurrent.CompletableFuture<Void> deregister(NamingService naming, NamingOp.Deregister op) {
        InstanceAddress a = op.address();
        return naming.deregister(op.service(), a.cluster(), a.ip(), a.port(), op.ephemeral());
    }

    private static Map<String, Object> detail(NamingService naming, NamingOp.InstanceQuery op) {
        ServiceKey service = op.service();
        InstanceAddress a = op.address();
        Instance i = naming.instance(service, a.cluster(), a.ip(), a.port())
                .orElseThrow(() -> new InstanceNotFoundException(service, a));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("serviceName", service.groupedName());
        data.put("ip", i.ip());
        data.put("port", i.port());
        data.put("clusterName", i.cluster());
        data.put("weight", i.weight());
        data.put("healthy", i.healthy());
        data.put("instanceId", i.idIn(service));
        data.put("metadata", i.metadata());
        return data;
    }
}
