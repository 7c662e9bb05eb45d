package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigSearch;
import io.lodestar.config.ConfigService;
import io.lodestar.config.PublishRequest;

/** {@code /nacos/v1/cs/configs}: publish, get and delete, as nacos-client 1.4.x speaks them. */
public final class ConfigRoutes {
    private static final String PATH = "/nacos/v1/cs/configs";

    private ConfigRoutes() {}

    public static void install(Javalin app, ConfigService configs, ConfigSearch search, ConfigTransferRoutes transfer) {
        app.post(PATH, ctx -> {
            if (!transfer.handlePost(ctx)) { // import=true
                publish(ctx, configs);
            }
        });
        app.get(PATH, ctx -> {
            if (transfer.handleGet(ctx)) { // export=true, exportV2=true
                return;
            }
            // one path, three reads, told apart by their parameters as Nacos does
            if (Params.get(ctx, "search") != null) {
                ConfigSearchRoutes.search(ctx, search);
            } else if ("all".equals(Params.get(ctx, "show"))) {
                ConfigSearchRoutes.detail(ctx, configs);
            } else {
                get(ctx, configs);
            }
        });
        app.delete(PATH, ctx -> {
            ConfigKey key = key(ctx);
            ctx.future(() -> configs.delete(key, ctx.ip(), null).thenAccept(v -> ctx.result("true")));
        });
    }

    private static ConfigKey key(Context ctx) {
        return new ConfigKey(Params.get(ctx, "tenant"), Params.get(ctx, "group"), Params.get(ctx, "dataId"));
    }

    private static void publish(Context ctx, ConfigService configs) {
        PublishRequest request = new PublishRequest(key(ctx), Params.get(ctx, "content"), Params.get(ctx, "type"),
                Params.get(ctx, "appName"), Params.get(ctx, "desc"), Params.get(ctx, "config_tags"), ctx.ip(), null);
        String casMd5 = Params.get(ctx, "casMd5");
        ctx.future(() -> configs.publish(request, casMd5 == null || casMd5.isEmpty() ? null : casMd5)
                .thenAccept(revision -> ctx.result("true")));
    }

    private static void get(Context ctx, ConfigService configs) {
        Config config = configs.get(key(ctx));
        ctx.header("Pragma", "no-cache").header("Cache-Control", "no-cache,no-store");
        if (config == null) {
            ctx.status(404).result("config data not exist\n");
            return;
        }
        ctx.header("Config-Type", config.type() == null ? "text" : config.type());
        ctx.header("Content-MD5", config.md5());
        ctx.contentType("text/plain;charset=UTF-8");
        ctx.result(config.content());
    }
}
