package io.lodestar.api.v1;

import io.lodestar.api.http.Answer;
import io.lodestar.config.Config;
import io.lodestar.config.service.ConfigSearch;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The two JSON reads of {@code GET /nacos/v1/cs/configs}: {@code search=accurate|blur} (a page of
 * Nacos {@code ConfigInfo}) and {@code show=all} (one Nacos {@code ConfigAllInfo}).
 */
final class ConfigSearchRoutes {
    private ConfigSearchRoutes() {}

    static void search(Answer answer, ConfigSearch.Page page) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("totalCount", page.totalCount());
        body.put("pageNumber", page.pageNumber());
        body.put("pagesAvailable", page.pagesAvailable());
        body.put(
                "pageItems",
                page.items().stream().map(ConfigSearchRoutes::configInfo).toList());
        answer.answerJson(body);
    }

    static void detail(Answer answer, Config config) {
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
        answer.answerJson(m);
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
}
