package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.http.Params;
import io.lodestar.config.BetaConfig;
import io.lodestar.config.BetaIps;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigSearch;
import io.lodestar.config.ConfigService;
import io.lodestar.config.PublishRequest;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.Set;
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
    private static final String TEXT = "text/plain";
    /** The parameters of a plain read: anything more (beta, search, show, export) is another read. */
    private static final Set<String> PLAIN_READ = Set.of("dataId", "group", "tenant");

    private static final String PROMOTE_PATH = "/lodestar/v1/cs/configs/beta/promote";

    private ConfigRoutes() {}

    public static void install(Javalin app, ConfigService configs, ConfigSearch search, ConfigTransferRoutes transfer) {
        app.post(PATH, ctx -> {
            if (!transfer.handlePost(ctx)) { // import=true
                publish(JavalinExchange.of(ctx), configs);
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
                get(JavalinExchange.of(ctx), configs);
            }
        });
        app.delete(PATH, ctx -> {
            ConfigKey key = key(ctx);
            if ("true".equals(Params.get(ctx, "beta"))) {
                ctx.future(() -> configs.stopBeta(key).thenAccept(v -> BetaRoutes.stopped(ctx)));
                return;
            }
            ctx.future(
                    () -> configs.delete(key, ctx.ip(), JavalinExchange.of(ctx).caller())
                            .thenAccept(v -> ctx.result("true")));
        });
        app.post(PROMOTE_PATH, ctx -> {
            ConfigKey key = key(ctx);
            ctx.future(() -> configs.promoteBeta(
                            key, ctx.ip(), JavalinExchange.of(ctx).caller())
                    .thenAccept(r -> ctx.result("true")));
        });
    }

    /** The commonest requests, taken in front of Javalin by the same endpoints: a plain read, and a publish (not an import). */
    public static void addFastPaths(FastPaths fast, ConfigService configs) {
        fast.add("GET", PATH, exchange -> PLAIN_READ.containsAll(exchange.names()), exchange -> get(exchange, configs));
        fast.add(
                "POST",
                PATH,
                exchange -> !exchange.names().contains(ConfigTransferRoutes.IMPORT),
                exchange -> publish(exchange, configs));
    }

    static ConfigKey key(Context ctx) {
        return key(Params.of(ctx));
    }

    static ConfigKey key(Params q) {
        return new ConfigKey(q.get("tenant"), q.get("group"), q.get("dataId"));
    }

    private static void publish(Exchange exchange, ConfigService configs) {
        Params q = exchange.params();
        PublishRequest request = new PublishRequest(
                key(q),
                q.get("content"),
                q.get("type"),
                q.get("appName"),
                q.get("desc"),
                q.get("config_tags"),
                exchange.remoteAddr(),
                exchange.caller());
        String casMd5 = q.get("casMd5");
        boolean cas = casMd5 != null && !casMd5.isEmpty();
        String betaIps = exchange.header(BetaIps.FIELD);
        if (betaIps != null) {
            if (cas) {
                throw new InvalidRequestException("casMd5", "compare-and-publish is not supported for a beta");
            }
            exchange.answerWhenDone(TEXT, configs.publishBeta(request, betaIps).thenApply(revision -> "true"));
            return;
        }
        exchange.answerWhenDone(
                TEXT, configs.publish(request, cas ? casMd5 : null).thenApply(revision -> "true"));
    }

    private static void get(Exchange exchange, ConfigService configs) {
        ConfigKey key = key(exchange.params());
        // beta first: a promote (stable replaced and beta removed in one write) applied between the
        // two reads then shows the new content either way, never the old stable to a listed client
        BetaConfig beta = configs.getBeta(key);
        Config config = configs.get(key);
        noCacheHeaders(exchange::answerHeader);
        if (beta != null && beta.servesTo(exchange.remoteAddr())) {
            exchange.answerHeader("isBeta", "true");
            exchange.answerHeader("Config-Type", config == null || config.type() == null ? "text" : config.type());
            exchange.answerHeader("Content-MD5", beta.md5());
            exchange.answer(CONTENT_TYPE, beta.content());
            return;
        }
        if (config == null) {
            throw notFound();
        }
        configHeaders(config, exchange::answerHeader);
        exchange.answer(CONTENT_TYPE, config.content());
    }

    /** What Nacos answers for a config that does not exist (the 1.x client reads the 404 as "no config"). */
    static NotFoundException notFound() {
        return new NotFoundException("config", "config data not exist");
    }

    /** Every answer of a config read carries these. */
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
