package io.lodestar.api.v2;

import static io.lodestar.api.v2.V2Answers.SUCCESS;
import static io.lodestar.api.v2.V2Answers.answer;
import static io.lodestar.api.v2.V2Answers.result;
import static io.lodestar.api.v2.V2Answers.v2;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.ErrorMapping;
import io.lodestar.api.http.Params;
import io.lodestar.api.v1.naming.NamingJson;
import io.lodestar.api.v1.naming.NamingParams;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.NamingService;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code /nacos/v2/ns/instance} and {@code /nacos/v2/ns/instance/list}: the Nacos 2.x open API for
 * instances, over the same parameters and rules as v1. Every answer is Nacos's {@code Result}
 * ({@code {"code","message","data"}}, codes as in {@link ConfigV2Routes}); the status of an error
 * is the one v1 answers ({@link ErrorMapping}), its code follows from it. The list carries no UDP
 * subscription (v2 clients use gRPC push, which Lodestar does not speak yet).
 */
public final class NamingV2Routes {
    private static final String PATH = "/nacos/v2/ns/instance";

    private NamingV2Routes() {}

    public static void install(Javalin app, NamingService naming) {
        app.post(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            Instance instance = NamingParams.instance(q);
            answer(ctx, naming.register(service, instance).thenApply(v -> "ok"));
        }));
        app.delete(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            String ip = NamingParams.required(q, "ip");
            int port = NamingParams.port(q);
            boolean ephemeral = NamingParams.bool(q, "ephemeral", true);
            answer(
                    ctx,
                    naming.deregister(service, NamingParams.cluster(q), ip, port, ephemeral)
                            .thenApply(v -> "ok"));
        }));
        app.put(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            Instance instance = NamingParams.instance(q);
            answer(ctx, naming.update(service, instance).thenApply(v -> "ok"));
        }));
        app.get(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            String ip = NamingParams.required(q, "ip");
            int port = NamingParams.port(q);
            String cluster = NamingParams.cluster(q);
            Instance i = naming.instance(service, cluster, ip, port)
                    .orElseThrow(() -> new InstanceNotFoundException(service, new InstanceAddress(cluster, ip, port)));
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("serviceName", service.groupedName());
            data.put("ip", i.ip());
            data.put("port", i.port());
            data.put("clusterName", i.cluster());
            data.put("weight", i.weight());
            data.put("healthy", i.healthy());
            data.put("instanceId", i.idIn(service));
            data.put("metadata", i.metadata());
            result(ctx, 200, SUCCESS, "success", data);
        }));
        app.get(PATH + "/list", v2(ctx -> {
            present(ctx, "serviceName");
            Params q = Params.of(ctx);
            ServiceKey service = NamingParams.service(q);
            String clusters = q.get("clusterName");
            clusters = clusters == null ? "" : clusters;
            Set<String> filter = NamingParams.clusterSet(clusters);
            for (String c : filter) {
                NamingValidation.checkCluster("clusterName", c);
            }
            boolean healthyOnly = NamingParams.bool(q, "healthyOnly", false);
            result(ctx, 200, SUCCESS, "success", NamingJson.list(naming.list(service, filter, healthyOnly), clusters));
        }));
    }

    /** Nacos 2 checks presence first: an absent required parameter is "parameter missing" (10000). */
    private static void present(Context ctx, String... names) {
        for (String name : names) {
            String value = Params.get(ctx, name);
            if (value == null || value.isBlank()) {
                throw InvalidRequestException.missing(name);
            }
        }
    }
}
