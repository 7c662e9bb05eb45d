package io.lodestar.api.views;

import static io.javalin.http.HandlerType.GET;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.ViewOp;
import io.lodestar.config.BetaConfig;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.history.HistoryEntry;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.NotFoundException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The delivery report of one config publish: every client listening to the config on every member
 * ({@link ClusterGather}, the listener view's rows), whether the member it is connected to told it
 * of the change, whether it has pulled the published content since, and if neither, why. Lodestar's
 * own (Nacos's nearest is the listener query, {@code config/controller/ConfigController#getListeners}:
 * who listens and with which MD5).
 *
 * <p>What each member keeps to answer is per listener and bounded: the last notice and the last pull
 * of each key it listens to, gone with the listener (a long-polling client's by its address, for a
 * few minutes, since each poll is a new listener).
 */
public final class DeliveryRoutes {
    public static final String PATH = "/lodestar/v1/cs/delivery";

    private final ClusterGather gather;
    private final ConfigService configs;

    private DeliveryRoutes(ClusterGather gather, ConfigService configs) {
        this.gather = gather;
        this.configs = configs;
    }

    public static void install(Routes routes, ClusterGather gather, ConfigService configs) {
        DeliveryRoutes d = new DeliveryRoutes(gather, configs);
        routes.add(GET, PATH, ViewRequests::delivery, d::report);
    }

    /** The publish the report is about: the MD5 of its content and, when known, when it was made. */
    record Publish(String md5, Long nid, Long atMillis) {}

    private void report(ViewOp.Delivery op, Answer answer) {
        ConfigKey key = op.key();
        Publish publish = publish(op);
        Config stable = configs.get(key);
        BetaConfig beta = configs.getBeta(key);
        answer.answerWhenDone(gather.gather(NodeViews.configListeners(key)).thenApply(nodes -> {
            List<Map<String, Object>> rows = ViewRoutes.rows(nodes);
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (String s : DeliveryVerdict.STATUSES) {
                counts.put(s, 0);
            }
            for (Map<String, Object> row : rows) {
                DeliveryVerdict.judge(row, publish, stable == null ? "" : stable.md5(), beta);
                counts.merge(String.valueOf(row.get("status")), 1, Integer::sum);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("dataId", key.dataId());
            body.put("group", key.group());
            body.put("tenant", key.tenant());
            body.put("md5", publish.md5());
            body.put("nid", publish.nid());
            body.put("publishedAt", publish.atMillis());
            body.put("currentMd5", stable == null ? null : stable.md5());
            if (beta != null) {
                body.put("beta", Map.of("md5", beta.md5(), "betaIps", beta.betaIps()));
            }
            body.put("summary", counts);
            body.put("listeners", rows);
            body.put("nodes", ViewRoutes.nodes(nodes));
            return Answer.Body.json(200, body);
        }));
    }

    /**
     * The publish {@code op} names. A history entry keeps, as Nacos's does, the content an update
     * replaced: the content an update at {@code nid} published is the next entry's (or the current
     * config's, when it is still the one published then).
     */
    private Publish publish(ViewOp.Delivery op) {
        ConfigKey key = op.key();
        if (op.nid() != null) {
            HistoryEntry e = configs.history().get(key, op.nid());
            if (e == null) {
                throw new NotFoundException("history", "history entry " + op.nid() + " of this config not found");
            }
            return switch (e.operation()) {
                case DELETE -> throw new InvalidRequestException("nid", op.nid() + " is a delete, not a publish");
                case INSERT -> new Publish(e.md5(), e.id(), e.time());
                case UPDATE -> new Publish(publishedBy(key, e), e.id(), e.time());
            };
        }
        Config current = configs.get(key);
        BetaConfig beta = configs.getBeta(key);
        if (op.md5() != null) {
            Long at = current != null && current.md5().equals(op.md5())
                    ? Long.valueOf(current.modifyTime())
                    : beta != null && beta.md5().equals(op.md5()) ? Long.valueOf(beta.modifyTime()) : null;
            return new Publish(op.md5(), null, at);
        }
        if (current == null) {
            throw new NotFoundException("config", "config data not exist");
        }
        return new Publish(current.md5(), current.modRevision(), current.modifyTime());
    }

    private String publishedBy(ConfigKey key, HistoryEntry update) {
        Config current = configs.get(key);
        if (current != null && current.modRevision() == update.id()) {
            return current.md5();
        }
        HistoryEntry next = configs.history().next(key, update.id());
        if (next == null || next.operation() == HistoryEntry.Operation.INSERT) {
            throw new NotFoundException(
                    "history", "the content published at " + update.id() + " is no longer in the history");
        }
        return next.md5();
    }
}
