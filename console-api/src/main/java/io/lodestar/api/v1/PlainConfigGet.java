package io.lodestar.api.v1;

import io.lodestar.api.http.FastExchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigService;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * The most frequent request of all, a client reading a config it has: a plain {@code GET
 * /nacos/v1/cs/configs} with dataId, group and tenant only, of a config that exists and has no
 * gray release, answered in front of Javalin ({@link FastPaths}) as {@link ConfigRoutes} answers
 * it, with the same headers ({@link ConfigRoutes#configHeaders}). Anything unusual (another
 * parameter, an invalid name, a beta, a miss) goes to the route.
 */
public final class PlainConfigGet implements FastPaths.Route {
    private static final Set<String> PLAIN_PARAMS = Set.of("dataId", "group", "tenant");

    private final ConfigService configs;

    public PlainConfigGet(ConfigService configs) {
        this.configs = configs;
    }

    @Override
    public boolean answer(FastExchange exchange) throws IOException {
        if (!PLAIN_PARAMS.containsAll(exchange.names())) {
            return false;
        }
        ConfigKey key;
        try {
            key = new ConfigKey(exchange.params().get("tenant"), exchange.params().get("group"),
                    exchange.params().get("dataId"));
        } catch (RuntimeException invalid) {
            return false; // the route names the problem
        }
        // beta first, as the route reads them (see ConfigRoutes#get)
        if (configs.getBeta(key) != null) {
            return false;
        }
        Config config = configs.get(key);
        if (config == null) {
            return false;
        }
        HttpServletResponse resp = exchange.response();
        ConfigRoutes.noCacheHeaders(resp::setHeader);
        ConfigRoutes.configHeaders(config, resp::setHeader);
        exchange.write(ConfigRoutes.CONTENT_TYPE, config.content().getBytes(StandardCharsets.UTF_8));
        return true;
    }
}
