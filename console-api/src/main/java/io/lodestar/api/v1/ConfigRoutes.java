package io.lodestar.api.v1;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.config.ServedConfig;
import io.lodestar.config.listen.PullObserver;
import io.lodestar.config.service.ConfigSearch;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.NotFoundException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * {@code /nacos/v1/cs/configs}: publish, get and delete, as nacos-client 1.4.x speaks them, with
 * Nacos 1.4's gray release (beta): publish with header {@code betaIps}, {@code beta=true} to query
 * or stop it; plus Lodestar's promote; search, detail, export and import on the same path. Which
 * content a client gets is decided by its socket address, never by a header.
 */
public final class ConfigRoutes {
    public static final String PATH = "/nacos/v1/cs/configs";
    static final String CONTENT_TYPE = "text/plain;charset=UTF-8";
    private static final String TEXT = "text/plain";
    /** The parameters of a plain read: anything more (beta, search, show, export) is another read. */
    private static final Set<String> PLAIN_READ = Set.of("dataId", "group", "tenant");

    private static final String PROMOTE_PATH = "/lodestar/v1/cs/configs/beta/promote";

    private final ConfigService configs;
    private final ConfigSearch search;
    private final ConfigTransferRoutes transfer;
    private final PullObserver pulls;

    private ConfigRoutes(
            ConfigService configs, ConfigSearch search, ConfigTransferRoutes transfer, PullObserver pulls) {
        this.pulls = pulls;
        this.configs = configs;
        this.search = search;
        this.transfer = transfer;
    }

    /** {@code pulls} hears each plain read that found the config (the delivery report's pulls over HTTP). */
    public static void install(
            Routes routes,
            ConfigService configs,
            ConfigSearch search,
            ConfigTransferRoutes transfer,
            PullObserver pulls) {
        ConfigRoutes r = new ConfigRoutes(configs, search, transfer, pulls);
        routes.add(GET, PATH, ConfigV1Requests::get, r::read)
                .add(POST, PATH, ConfigV1Requests::post, r::write)
                .add(DELETE, PATH, ConfigV1Requests::delete, r::delete)
                .add(POST, PROMOTE_PATH, ConfigV1Requests::promote, r::promote)
                // the commonest requests, also taken in front of Javalin: a plain read, and a publish
                .fast(GET, PATH, exchange -> PLAIN_READ.containsAll(exchange.names()), ConfigV1Requests::get, r::read)
                .fast(
                        POST,
                        PATH,
                        exchange -> !exchange.names().contains(ConfigV1Requests.IMPORT),
                        ConfigV1Requests::post,
                        r::write);
    }

    private void read(ConfigOp op, Answer answer) {
        if (op instanceof ConfigOp.Read read) {
            ServedConfig served = configs.serve(read.key(), answer.remoteAddr());
            if (served != null) {
                pulls.pulled(read.key(), answer.remoteAddr(), served.md5());
            }
            serve(served, answer);
        } else if (op instanceof ConfigOp.Beta beta) {
            BetaRoutes.query(answer, configs.getBeta(beta.key()));
        } else if (op instanceof ConfigOp.Search s) {
            ConfigSearchRoutes.search(answer, search.search(s.query(), s.pageNo(), s.pageSize()));
        } else if (op instanceof ConfigOp.Detail d) {
            ConfigSearchRoutes.detail(answer, configs.get(d.key()));
        } else if (op instanceof ConfigOp.Export export) {
            transfer.export(export, answer);
        } else {
            throw new IllegalStateException("not a read: " + op);
        }
    }

    private void write(ConfigOp op, Answer answer) {
        if (op instanceof ConfigOp.Publish p) {
            answer.answerWhenDone(
                    TEXT, configs.publish(p.request(), p.casMd5(), p.betaIps()).thenApply(revision -> "true"));
        } else if (op instanceof ConfigOp.Import i) {
            transfer.importArchive(i, answer);
        } else {
            throw new IllegalStateException("not a write: " + op);
        }
    }

    private void delete(ConfigOp op, Answer answer) {
        if (op instanceof ConfigOp.Beta beta) {
            answer.answerWhenDone(
                    configs.stopBeta(beta.key()).thenApply(v -> Answer.Body.json(200, BetaRoutes.stopped())));
        } else if (op instanceof ConfigOp.Remove remove) {
            answer.answerWhenDone(
                    TEXT,
                    configs.delete(remove.key(), answer.remoteAddr(), answer.caller())
                            .thenApply(v -> "true"));
        } else {
            throw new IllegalStateException("not a delete: " + op);
        }
    }

    private void promote(ConfigOp.Promote op, Answer answer) {
        answer.answerWhenDone(
                TEXT,
                configs.promoteBeta(op.key(), answer.remoteAddr(), answer.caller())
                        .thenApply(r -> "true"));
    }

    private static void serve(ServedConfig served, Answer answer) {
        noCacheHeaders(answer::answerHeader);
        if (served == null) {
            throw notFound();
        }
        if (served.beta()) {
            answer.answerHeader("isBeta", "true");
        }
        answer.answerHeader("Config-Type", served.type());
        answer.answerHeader("Content-MD5", served.md5());
        answer.answer(CONTENT_TYPE, served.content());
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
}
