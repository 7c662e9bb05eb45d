package io.lodestar.api.v1;

import io.lodestar.api.http.FastExchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.config.BetaIps;
import io.lodestar.config.ConfigService;
import io.lodestar.config.PublishRequest;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A plain publish ({@code POST /nacos/v1/cs/configs} with only the publish's own parameters: no
 * compare, no import, no beta) answered in
 * front of Javalin ({@link FastPaths}), read as {@link ConfigRoutes} reads it and answered {@code
 * true} once durable. A request refused before anything is proposed (an invalid name, blank or
 * oversized content) goes to the route, which names the problem; a failure of the write itself is
 * answered as the route answers it.
 */
public final class PlainConfigPublish implements FastPaths.Route {
    /** What {@link ConfigRoutes#publishRequest} reads. */
    private static final Set<String> PUBLISH_PARAMS = Set.of("dataId", "group", "tenant", "content", "type", "appName",
            "desc", "config_tags");
    private final ConfigService configs;

    public PlainConfigPublish(ConfigService configs) {
        this.configs = configs;
    }

    @Override
    public boolean answer(FastExchange exchange) {
        // the route also imports (import=true) and compares (casMd5): only what a plain publish reads is taken here
        if (exchange.header(BetaIps.FIELD) != null || !PUBLISH_PARAMS.containsAll(exchange.names())) {
            return false;
        }
        CompletableFuture<Long> published;
        try {
            PublishRequest request = ConfigRoutes.publishRequest(exchange.params(), exchange.remoteAddr());
            published = configs.publish(request);
        } catch (RuntimeException refused) {
            return false;
        }
        exchange.textWhenDone(published.thenApply(revision -> "true"));
        return true;
    }
}
