package io.lodestar.api.v1;

import io.lodestar.api.http.FastExchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.config.listen.ListeningConfigs;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.kv.InvalidRequestException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A config long-poll ({@code POST /nacos/v1/cs/configs/listener}, as nacos-client 1.4.x sends it)
 * answered in front of Javalin ({@link FastPaths}), read and answered as {@link ListenerRoutes}
 * does. Why: a notify round is a publish and a poll, and the publish already takes the fast path,
 * whose code a busy server has compiled; the poll through Javalin's servlet ran code that only the
 * polls themselves warm, a few hundred times, and cost about as much again. A malformed poll goes
 * to the route, which names the problem.
 */
public final class PlainConfigListen implements FastPaths.Route {
    private static final Set<String> LISTEN_PARAMS = Set.of(ListeningConfigs.FIELD);
    private final LongPollRegistry registry;

    public PlainConfigListen(LongPollRegistry registry) {
        this.registry = registry;
    }

    @Override
    public boolean answer(FastExchange exchange) {
        if (!LISTEN_PARAMS.containsAll(exchange.names())) {
            return false;
        }
        CompletableFuture<String> answer;
        try {
            answer = ListenerRoutes.poll(registry, exchange.params().get(ListeningConfigs.FIELD),
                    exchange.header(ListenerRoutes.TIMEOUT_HEADER), exchange.header(ListenerRoutes.NO_HANGUP_HEADER),
                    exchange.remoteAddr());
        } catch (InvalidRequestException refused) {
            return false; // the route answers it, naming the problem
        }
        exchange.response().setHeader(ListenerRoutes.PRAGMA, ListenerRoutes.NO_CACHE);
        exchange.response().setHeader(ListenerRoutes.CACHE_CONTROL, ListenerRoutes.NO_STORE);
        exchange.textWhenDone(ListenerRoutes.CONTENT_TYPE, answer);
        return true;
    }
}
