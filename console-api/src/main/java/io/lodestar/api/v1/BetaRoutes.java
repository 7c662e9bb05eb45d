package io.lodestar.api.v1;

import io.lodestar.api.http.Answer;
import io.lodestar.config.BetaConfig;
import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON bodies of Nacos 1.4's beta answers ({@code ConfigController.queryBeta} and {@code stopBeta}). */
final class BetaRoutes {
    private BetaRoutes() {}

    /** {@code {"code":200,"message":"query beta ok","data":ConfigInfo4Beta or null}}. */
    static void query(Answer answer, BetaConfig beta) {
        Map<String, Object> data = null;
        if (beta != null) {
            data = new LinkedHashMap<>();
            data.put("id", beta.createRevision());
            data.put("dataId", beta.key().dataId());
            data.put("group", beta.key().group());
            data.put("content", beta.content());
            data.put("md5", beta.md5());
            data.put("tenant", beta.key().tenant());
            data.put("appName", null);
            data.put("type", null);
            data.put("betaIps", beta.betaIpsJoined());
        }
        answer.answerJson(result("query beta ok", data));
    }

    /** {@code {"code":200,"message":"stop beta ok","data":true}}. */
    static Map<String, Object> stopped() {
        return result("stop beta ok", true);
    }

    private static Map<String, Object> result(String message, Object data) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", 200);
        body.put("message", message);
        body.put("data", data);
        return body;
    }
}
