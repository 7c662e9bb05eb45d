package io.lodestar.api.v2;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.lodestar.api.http.ErrorMapping;
import io.lodestar.api.http.Params;
import io.lodestar.api.v1.naming.NamingJson;
import io.lodestar.api.v1.naming.NamingParams;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.NamingService;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

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
            ServiceKey service = NamingParams.service(ctx);
            Instance instance = NamingParams.instance(ctx);
            answer(ctx, naming.register(service, instance).thenApply(v -> "ok"));
        }));
        app.delete(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            ServiceKey service = NamingParams.service(ctx);
            String ip = NamingParams.required(ctx, "ip");
            int port = NamingParams.port(ctx);
            boolean ephemeral = NamingParams.bool(ctx, "ephemeral", true);
            answer(ctx, naming.deregister(service, NamingParams.cluster(ctx), ip, port, ephemeral).thenApply(v -> "ok"));
        }));
        app.put(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            ServiceKey service = NamingParams.service(ctx);
            Instance instance = NamingParams.instance(ctx);
            answer(ctx, naming.update(service, instance).thenApply(v -> "ok"));
        }));
        app.get(PATH, v2(ctx -> {
            present(ctx, "serviceName", "ip", "port");
            ServiceKey service = NamingParams.service(ctx);
            String ip = NamingParams.required(ctx, "ip");
            int port = NamingParams.port(ctx);
            String cluster = NamingParams.cluster(ctx);
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
            result(ctx, 200, ConfigV2Routes.SUCCESS, "success", data);
        }));
        app.get(PATH + "/list", v2(ctx -> {
            present(ctx, "serviceName");
            ServiceKey service = NamingParams.service(ctx);
            String clusters = Params.get(ctx, "clusterName");
            clusters = clusters == null ? "" : clusters;
            Set<String> filter = NamingParams.clusterSet(clusters);
            for (String c : filter) {
                NamingValidation.checkCluster("clusterName", c);
            }
            boolean healthyOnly = NamingParams.bool(ctx, "healthyOnly", false);
            result(ctx, 200, ConfigV2Routes.SUCCESS, "success",
                    NamingJson.list(naming.list(service, filter, healthyOnly), clusters));
        }));
    }

    /** Nacos 2 checks presence first: an absent required parameter is "parameter missing" (10000). */
    private static void present(Context ctx, String... names) {
        for (String name : names) {
            String value = Params.get(ctx, name);
            if (value == null || value.isBlank()) {
                throw new MissingParameter(name);
            }
        }
    }

    private static void answer(Context ctx, CompletableFuture<String> outcome) {
        ctx.future(() -> outcome.handle((data, error) -> {
            if (error != null) {
                error(ctx, error);
            } else {
                result(ctx, 200, ConfigV2Routes.SUCCESS, "success", data);
            }
            return null;
        }));
    }

    private static Handler v2(Handler handler) {
        return ctx -> {
            try {
                handler.handle(ctx);
            } catch (Exception e) {
                error(ctx, e);
            }
        };
    }

    private static void error(Context ctx, Throwable e) {
        if (e instanceof MissingParameter missing) {
            result(ctx, 400, ConfigV2Routes.PARAMETER_MISSING, "parameter missing",
                    "Required parameter '" + missing.name + "' type String is not present");
            return;
        }
        ErrorMapping.Mapped m = ErrorMapping.map(e, ctx);
        String message = m.message().startsWith("caused: ") ? m.message().substring("caused: ".length()) : m.message();
        int code;
        String text;
        if (m.status() == 404) {
            code = ConfigV2Routes.RESOURCE_NOT_FOUND;
            text = "resource not found";
        } else if (m.status() == 409) {
            code = ConfigV2Routes.RESOURCE_CONFLICT;
            text = "resource conflict";
        } else if (m.status() >= 400 && m.status() < 500) {
            code = ConfigV2Routes.PARAMETER_VALIDATE_ERROR;
            text = "parameter validate error";
        } else {
            code = ConfigV2Routes.SERVER_ERROR;
            text = "server error";
        }
        result(ctx, m.status(), code, text, message);
    }

    private static void result(Context ctx, int status, int code, String message, Object data) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code);
        body.put("message", message);
        body.put("data", data);
        ctx.status(status).json(body);
    }

    private static final class MissingParameter extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String name;

        MissingParameter(String name) {
            super(name, null, false, false);
            this.name = name;
        }
    }
}
