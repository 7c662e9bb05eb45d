package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.http.Params;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigService;
import io.lodestar.config.history.ConfigHistory;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /nacos/v1/cs/history}: a config's history as Nacos answers it (list newest first with
 * {@code content: null}, detail by {@code nid}, the entry before an id), plus Lodestar's rollback.
 */
public final class HistoryRoutes {
    private static final String PATH = "/nacos/v1/cs/history";
    private static final int MAX_PAGE_SIZE = 500;

    private HistoryRoutes() {}

    public static void install(Javalin app, ConfigService configs) {
        ConfigHistory history = configs.history();
        app.get(PATH, ctx -> {
            ConfigKey key = key(ctx);
            String nid = Params.get(ctx, "nid");
            if (nid != null) {
                answer(ctx, history.get(key, id("nid", nid)));
                return;
            }
            int pageNo = number(ctx, "pageNo", 1, Integer.MAX_VALUE, 1);
            int pageSize = number(ctx, "pageSize", 1, MAX_PAGE_SIZE, 100);
            ConfigHistory.Page page = history.list(key, pageNo, pageSize);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("totalCount", page.totalCount());
            body.put("pageNumber", page.pageNumber());
            body.put("pagesAvailable", page.pagesAvailable());
            body.put("pageItems", page.items().stream().map(e -> json(e, false)).toList());
            ctx.json(body);
        });
        app.get(PATH + "/previous", ctx -> answer(ctx, history.previous(key(ctx), id("id", Params.get(ctx, "id")))));
        app.post("/lodestar/v1/cs/history/rollback", ctx -> {
            long nid = id("nid", Params.get(ctx, "nid"));
            ConfigKey key = key(ctx);
            ctx.future(() -> configs.rollback(
                            key, nid, ctx.ip(), JavalinExchange.of(ctx).caller())
                    .thenAccept(r -> ctx.result("true")));
        });
    }

    private static void answer(Context ctx, HistoryEntry entry) {
        if (entry == null) {
            throw new NotFoundException("history entry", "history entry not found");
        }
        ctx.json(json(entry, true));
    }

    private static ConfigKey key(Context ctx) {
        return new ConfigKey(Params.get(ctx, "tenant"), Params.get(ctx, "group"), Params.get(ctx, "dataId"));
    }

    private static long id(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new InvalidRequestException(name, "is required");
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(name, "'" + value + "' is not a number");
        }
    }

    private static int number(Context ctx, String name, int min, int max, int absent) {
        String value = Params.get(ctx, name);
        if (value == null || value.isEmpty()) {
            return absent;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n < min || n > max) {
                throw new InvalidRequestException(name, "must be between " + min + " and " + max + ", got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(name, "'" + value + "' is not a number");
        }
    }

    /** Nacos's field names; {@code opType} padded to 10 characters as Nacos's CHAR(10) column is. */
    private static Map<String, Object> json(HistoryEntry e, boolean withContent) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", Long.toString(e.id()));
        m.put("lastId", -1);
        m.put("dataId", e.key().dataId());
        m.put("group", e.key().group());
        m.put("tenant", e.key().tenant());
        m.put("appName", e.appName() == null ? "" : e.appName());
        m.put("md5", e.md5());
        m.put("content", withContent ? e.content() : null);
        m.put("srcIp", e.srcIp());
        m.put("srcUser", e.srcUser());
        m.put("opType", String.format("%-10s", e.operation().code()));
        m.put("createdTime", e.time());
        m.put("lastModifiedTime", e.time());
        return m;
    }
}
