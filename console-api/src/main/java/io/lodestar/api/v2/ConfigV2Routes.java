package io.lodestar.api.v2;

import static io.lodestar.api.v2.V2Answers.SUCCESS;
import static io.lodestar.api.v2.V2Answers.answer;
import static io.lodestar.api.v2.V2Answers.result;
import static io.lodestar.api.v2.V2Answers.v2;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.http.Params;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigService;
import io.lodestar.config.PublishRequest;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.Locale;
import java.util.Set;

/**
 * {@code /nacos/v2/cs/config}: the Nacos 2.x open API for configs. Every answer, errors included,
 * is Nacos's {@code Result}: {@code {"code","message","data"}} with the codes of Nacos's
 * {@code ErrorCode} (0 success, 10000 parameter missing, 20002 parameter validate error, 20004
 * resource not found, 20005 resource conflict, 30000 server error). Errors are rendered here, not
 * by the global {@code ErrorMapping}, which keeps the v1 plain-text bodies.
 */
public final class ConfigV2Routes {
    private static final String PATH = "/nacos/v2/cs/config";
    /** Nacos's ConfigType values; any other type is stored as {@code text}, as Nacos does. */
    private static final Set<String> TYPES = Set.of("properties", "xml", "json", "text", "html", "yaml", "toml");

    private ConfigV2Routes() {}

    public static void install(Javalin app, ConfigService configs) {
        app.get(PATH, v2(ctx -> get(ctx, configs)));
        app.post(PATH, v2(ctx -> publish(ctx, configs)));
        app.delete(PATH, v2(ctx -> {
            ConfigKey key = key(ctx, false);
            answer(
                    ctx,
                    configs.delete(key, ctx.ip(), JavalinExchange.of(ctx).caller())
                            .thenApply(v -> true));
        }));
    }

    private static void get(Context ctx, ConfigService configs) {
        Config config = configs.get(key(ctx, false));
        ctx.header("Pragma", "no-cache").header("Cache-Control", "no-cache,no-store");
        if (config == null) {
            throw new NotFoundException("config", "config data not exist");
        }
        ctx.header("Config-Type", config.type() == null ? "text" : config.type());
        ctx.header("Content-MD5", config.md5());
        result(ctx, 200, SUCCESS, "success", config.content());
    }

    private static void publish(Context ctx, ConfigService configs) {
        // Nacos 2 checks presence first (10000 for a blank dataId, group or content), then validity (20002)
        required(ctx, "dataId");
        required(ctx, "group");
        required(ctx, "content");
        ConfigKey key = key(ctx, true);
        String type = Params.get(ctx, "type");
        type = type == null || !TYPES.contains(type.toLowerCase(Locale.ROOT)) ? "text" : type.toLowerCase(Locale.ROOT);
        PublishRequest request = new PublishRequest(
                key,
                Params.get(ctx, "content"),
                type,
                Params.get(ctx, "appName"),
                Params.get(ctx, "desc"),
                Params.get(ctx, "configTags"),
                ctx.ip(),
                JavalinExchange.of(ctx).caller()); // the author is who logged in, never srcUser
        String casMd5 = ctx.header("casMd5");
        answer(
                ctx,
                configs.publish(request, casMd5 == null || casMd5.isBlank() ? null : casMd5)
                        .thenApply(r -> true));
    }

    /**
     * The config key from {@code dataId}, {@code group}, {@code namespaceId}; an absent dataId or
     * group is "parameter missing" (Nacos's required request parameters), a present but invalid
     * one is "parameter validate error". {@code public} names the public namespace, as in Nacos 2.
     */
    private static ConfigKey key(Context ctx, boolean checkedPresent) {
        if (!checkedPresent) {
            present(ctx, "dataId");
            present(ctx, "group");
        }
        rejectTag(ctx);
        String namespace = Params.get(ctx, "namespaceId");
        if (namespace == null
                || namespace.isBlank()
                || namespace.equalsIgnoreCase("public")
                || namespace.equalsIgnoreCase("null")) {
            namespace = "";
        }
        String group = Params.get(ctx, "group");
        if (group.isBlank()) {
            // v1 defaults an empty group; Nacos 2's v2 API refuses it
            throw new InvalidRequestException("group", "must not be blank");
        }
        return new ConfigKey(namespace, group, Params.get(ctx, "dataId"));
    }

    /** Tagged (gray) configs are not implemented yet: refuse rather than read or write the untagged one. */
    private static void rejectTag(Context ctx) {
        String tag = Params.get(ctx, "tag");
        if (tag != null && !tag.isBlank()) {
            throw new InvalidRequestException("tag", "tagged configs are not supported yet");
        }
    }

    private static void present(Context ctx, String name) {
        if (Params.get(ctx, name) == null) {
            throw InvalidRequestException.missing(name);
        }
    }

    private static void required(Context ctx, String name) {
        String value = Params.get(ctx, name);
        if (value == null || value.isBlank()) {
            throw InvalidRequestException.missing(name);
        }
    }
}
