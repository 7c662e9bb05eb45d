package io.lodestar.api.v1;

import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.config.history.ConfigHistory;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.NotFoundException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /nacos/v1/cs/history}: a config's history as Nacos answers it (list newest first with
 * {@code content: null}, detail by {@code nid}, the entry before an id), plus Lodestar's rollback.
 */
public final class HistoryRoutes {
    private static final String PATH = "/nacos/v1/cs/history";

    private HistoryRoutes() {}

    public static void install(Routes routes, ConfigService configs) {
        ConfigHistory history = configs.history();
        routes.add(GET, PATH, ConfigV1Requests::history, (op, answer) -> {
            if (op.nid() != null) {
                answer(answer, history.get(op.key(), op.nid()));
                return;
            }
            ConfigHistory.Page page = history.list(op.key(), op.pageNo(), op.pageSize());
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("totalCount", page.totalCount());
            body.put("pageNumber", page.pageNumber());
            body.put("pagesAvailable", page.pagesAvailable());
            body.put("pageItems", page.items().stream().map(e -> json(e, false)).toList());
            answer.answerJson(body);
        });
        routes.add(
                GET,
                PATH + "/previous",
                ConfigV1Requests::previous,
                (op, answer) -> answer(answer, history.previous(op.key(), op.id())));
        routes.add(
                POST,
                "/lodestar/v1/cs/history/rollback",
                ConfigV1Requests::rollback,
                (op, answer) -> answer.answerWhenDone(
                        "text/plain",
                        configs.rollback(op.key(), op.nid(), answer.remoteAddr(), answer.caller())
                                .thenApply(r -> "true")));
    }

    private static void answer(Answer answer, HistoryEntry entry) {
        if (entry == null) {
            throw new NotFoundException("history entry", "history entry not found");
        }
        answer.answerJson(json(entry, true));
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
