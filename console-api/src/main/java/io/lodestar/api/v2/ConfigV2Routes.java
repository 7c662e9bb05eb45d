package io.lodestar.api.v2;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;
import static io.lodestar.api.v2.V2Answers.answer;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.config.ServedConfig;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.NotFoundException;

/**
 * {@code /nacos/v2/cs/config}: the Nacos 2.x open API for configs. Every answer, errors included,
 * is Nacos's {@code Result}: {@code {"code","message","data"}} with the codes of Nacos's
 * {@code ErrorCode} (0 success, 10000 parameter missing, 20002 parameter validate error, 20004
 * resource not found, 20005 resource conflict, 30000 server error). A read serves a gray release
 * to the clients in it, as v1 and gRPC do.
 */
public final class ConfigV2Routes {
    private static final String PATH = "/nacos/v2/cs/config";

    private ConfigV2Routes() {}

    public static void install(Routes routes, ConfigService configs) {
        routes.add(GET, PATH, V2Requests::configRead, (op, answer) -> get(op, answer, configs), V2Answers::v2);
        routes.add(
                POST,
                PATH,
                V2Requests::configPublish,
                (op, answer) -> answer(
                        answer,
                        configs.publish(op.request(), op.casMd5(), op.betaIps()).thenApply(r -> true),
                        "POST " + PATH),
                V2Answers::v2);
        routes.add(
                DELETE,
                PATH,
                V2Requests::configRemove,
                (op, answer) -> answer(
                        answer,
                        configs.delete(op.key(), answer.remoteAddr(), answer.caller())
                                .thenApply(v -> true),
                        "DELETE " + PATH),
                V2Answers::v2);
    }

    private static void get(ConfigOp.Read op, Answer answer, ConfigService configs) {
        ServedConfig served = configs.serve(op.key(), answer.remoteAddr());
        answer.answerHeader("Pragma", "no-cache").answerHeader("Cache-Control", "no-cache,no-store");
        if (served == null) {
            throw new NotFoundException("config", "config data not exist");
        }
        answer.answerHeader("Config-Type", served.type());
        answer.answerHeader("Content-MD5", served.md5());
        answer.answer(V2Answers.success(served.content()));
    }
}
