package io.lodestar.api.v1;

import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigSearch;
import io.lodestar.config.ConfigService;
import io.lodestar.error.InvalidRequestException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The two JSON reads of {@code GET /nacos/v1/cs/configs}: {@code search=accurate|blur} (a page of
 * Nacos {@code ConfigInfo}) and {@code show=all} (one Nacos {@code ConfigAllInfo}).
 */
final class ConfigSearchRoutes {
    private static final int DEFAULT_PAGE_SIZE = 100;

    private ConfigSearchRoutes() {}

    static void search(Context ctx, ConfigSearch search) {
        String mode = Params.get(ctx, "search");
        ConfigSearch.Mode parsed = switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case "accurate" -> ConfigSearch.Mode.ACCURATE;
            case "blur" -> ConfigSearch.Mode.BLUR;
            default -> throw new InvalidRequestException("search", "must be 'accurate' or 'blur', got '" + mode + "'");
        };
        ConfigSearch.Query query = new ConfigSearch.Query(
                parsed,
                tenant(ctx),
                Params.get(ctx, "dataId"),
                Params.get(ctx, "group"),
                Params.get(ctx, "appName"),
                ConfigSearch.splitTags(Params.get(ctx, "config_tags")));
        int pageNo = number(ctx, "pageNo", 1);
        int pageSize = number(ctx, "pageSize", DEFAULT_PAGE_SIZE);
        ConfigSearch.Page page = search.search(query, pageNo, pageSize);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("totalCount", page.totalCount());
        body.put("pageNumber", page.pageNumber());
        body.put("pagesAvailable", page.pagesAvailable());
        body.put(
                "pageItems",
                page.items().stream().map(ConfigSearchRoutes::configInfo).toList());
        ctx.json(body);
    }

    static void detail(Context ctx, ConfigService configs) {
        ConfigKey key = new ConfigKey(tenant(ctx), Params.get(ctx, "group"), Params.get(ctx, "dataId"));
        Config config = configs.get(key);
        if (config == null) {
            throw ConfigRoutes.notFound();
        }
        Map<String, Object> m = configInfo(config);
        m.put("createTime", config.createTime());
        m.put("modifyTime", config.modifyTime());
        m.put("createUser", config.srcUser());
        m.put("createIp", config.srcIp());
        m.put("desc", config.desc());
        m.put("use", null);
        m.put("effect", null);
        m.put("schema", null);
        m.put(
                "configTags",
                config.tags() == null || config.tags().isBlank()
                        ? null
                        : String.join(",", ConfigSearch.splitTags(config.tags())));
        ctx.json(m);
    }

    /** Nacos's ConfigInfo: {@code id} is a string (Nacos serialises its long id so); here the create revision. */
    private static Map<String, Object> configInfo(Config c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", Long.toString(c.createRevision()));
        m.put("dataId", c.key().dataId());
        m.put("group", c.key().group());
        m.put("content", c.content());
        m.put("md5", c.md5());
        m.put("encryptedDataKey", null);
        m.put("tenant", c.key().tenant());
        m.put("appName", c.appName() == null ? "" : c.appName());
        m.put("type", c.type() == null ? "text" : c.type());
        return m;
    }

    private static String tenant(Context ctx) {
        String tenant = Params.get(ctx, "tenant");
        return tenant == null ? "" : tenant;
    }

    private static int number(Context ctx, String name, int absent) {
        String value = Params.get(ctx, name);
        if (value == null || value.isEmpty()) {
            return absent;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(name, "'" + value + "' is not a number");
        }
    }
}
