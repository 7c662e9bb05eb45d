package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.config.BetaConfig;
import io.lodestar.config.BetaIps;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigSearch;
import io.lodestar.config.ConfigService;
import io.lodestar.config.PublishRequest;
import io.lodestar.kv.InvalidRequestException;
import java.util.function.BiConsumer;

/**
 * {@code /nacos/v1/cs/configs}: publish, get and delete, as nacos-client 1.4.x speaks them, with
 * Nacos 1.4's gray release (beta): publish with header {@code betaIps}, {@code beta=true} to query
 * or stop it; plus Lodestar's promote. Which content a client gets is decided by its socket address
 * ({@code ctx.ip()}), never by a header.
 */
public final class ConfigRoutes {
    public static final String PATH = "/nacos/v1/cs/configs";
    static final String CONTENT_TYPE = "text/plain;charset=UTF-8";
    private static final String PROMOTE_PATH = "/lodestar/v1/cs/configs/beta/promote";

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
            // one path, several reads, told apart by their parameters as Nacos does
            if ("true".equals(Params.get(ctx, "beta"))) {
                BetaRoutes.query(ctx, configs.getBeta(key(ctx)));
            } else if (Params.get(ctx, "search") != null) {
                ConfigSearchRoutes.search(ctx, search);
            } else if ("all".equals(Params.get(ctx, "show"))) {
                ConfigSearchRoutes.detail(ctx, configs);
            } else {
                get(ctx, configs);
            }
        });
        app.delete(PATH, ctx -> {
            ConfigKey key = key(ctx);
            if ("true".equals(Params.get(ctx, "beta"))) {
                ctx.future(() -> configs.stopBeta(key).thenAccept(v -> BetaRoutes.stopped(ctx)));
                return;
            }
            ctx.future(() -> configs.delete(key, ctx.ip(), null).thenAccept(v -> ctx.result("true")));
        });
        app.post(PROMOTE_PATH, ctx -> {
            ConfigKey key = key(ctx);
            ctx.future(() -> configs.promoteBeta(key, ctx.ip(), null).thenAccept(r -> ctx.result("true")));
        });
    }

    static ConfigKey key(Context ctx) {
        return key(Params.of(ctx));
    }

    static ConfigKey key(Params q) {
        return new ConfigKey(q.get("tenant"), q.get("group"), q.get("dataId"));
    }

    /** What a publish from {@code srcIp} asks for; {@link PlainConfigPublish} reads it alike. */
    static PublishRequest publishRequest(Params q, String srcIp) {
        return new PublishRequest(key(q), q.get("content"), q.get("type"), q.get("appName"), q.get("desc"),
                q.get("config_tags"), srcIp, null);
    }

    private static void publish(Context ctx, ConfigService configs) {
        PublishRequest request = publishRequest(Params.of(ctx), ctx.ip());
        String casMd5 = Params.get(ctx, "casMd5");
        boolean cas = casMd5 != null && !casMd5.isEmpty();
        String betaIps = ctx.header(BetaIps.FIELD);
        if (betaIps != null) {
            if (cas) {
                throw new InvalidRequestException("casMd5", "compare-and-publish is not supported for a beta");
            }
            ctx.future(() -> configs.publishBeta(request, betaIps).thenAccept(revision -> ctx.result("true")));
            return;
        }
        ctx.future(() -> configs.publish(request, cas ? casMd5 : null)
                .thenAccept(revision -> ctx.result("true")));
    }

    private static void get(Context ctx, ConfigService configs) {
        ConfigKey key = key(ctx);
        // beta first: a promote (stable replaced and beta removed in one write) applied between the
        // two reads then shows the new content either way, never the old stable to a listed client
        BetaConfig beta = configs.getBeta(key);
        Config config = configs.get(key);
        noCacheHeaders(ctx::header);
        if (beta != null && beta.servesTo(ctx.ip())) {
            ctx.header("isBeta", "true");
            ctx.header("Config-Type", config == null || config.type() == null ? "text" : config.type());
            ctx.header("Content-MD5", beta.md5());
            ctx.contentType(CONTENT_TYPE);
            ctx.result(beta.content());
            return;
        }
        if (config == null) {
            ctx.status(404).result("config data not exist\n");
            return;
        }
        configHeaders(config, ctx::header);
        ctx.contentType(CONTENT_TYPE);
        ctx.result(config.content());
    }

    /** Every answer of a config read carries these; {@link PlainConfigGet} sends them too. */
    static void noCacheHeaders(BiConsumer<String, String> header) {
        header.accept("Pragma", "no-cache");
        header.accept("Cache-Control", "no-cache,no-store");
    }

    /** The headers of a stable config's answer, besides the above and its content type. */
    static void configHeaders(Config config, BiConsumer<String, String> header) {
        header.accept("Config-Type", config.type() == null ? "text" : config.type());
        header.accept("Content-MD5", config.md5());
    }
}
