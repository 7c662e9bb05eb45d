package io.lodestar.api.v1;

import io.lodestar.api.metrics.Metrics;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigService;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Answers the most frequent request of all, a client reading a config it has (a plain {@code GET
 * /nacos/v1/cs/configs} with dataId, group and tenant only, of a config that exists and has no
 * gray release), in front of Javalin's servlet, and hands every other request on untouched.
 * Javalin's servlet layer costs as much as the rest of the request here: a bare handler serves
 * about 1.7x the requests on the same Jetty. The answer is the one {@link ConfigRoutes} gives,
 * with the same headers ({@link ConfigRoutes#configHeaders}); anything unusual (another parameter, a
 * repeated one, an invalid name, a beta, a miss) goes to the route, which also owns every error.
 */
public final class PlainConfigGet extends HandlerWrapper {
    private static final Set<String> PLAIN_PARAMS = Set.of("dataId", "group", "tenant");

    private final ConfigService configs;
    private final Metrics metrics;

    public PlainConfigGet(ConfigService configs, Metrics metrics) {
        this.configs = configs;
        this.metrics = metrics;
    }

    @Override
    public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        long start = System.nanoTime();
        if ("GET".equals(req.getMethod()) && ConfigRoutes.PATH.equals(target) && answered(req, resp)) {
            base.setHandled(true);
            metrics.record("GET", ConfigRoutes.PATH, 200, System.nanoTime() - start);
            return;
        }
        super.handle(target, base, req, resp);
    }

    private boolean answered(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (req.getContentType() != null) {
            return false; // the route reads form parameters before the query's
        }
        ConfigKey key;
        try {
            for (Map.Entry<String, String[]> p : req.getParameterMap().entrySet()) {
                if (!PLAIN_PARAMS.contains(p.getKey()) || p.getValue().length != 1) {
                    return false;
                }
            }
            key = new ConfigKey(req.getParameter("tenant"), req.getParameter("group"), req.getParameter("dataId"));
        } catch (RuntimeException invalid) {
            return false; // a malformed query or an invalid name: the route names the problem
        }
        // beta first, as the route reads them (see ConfigRoutes#get)
        if (configs.getBeta(key) != null) {
            return false;
        }
        Config config = configs.get(key);
        if (config == null) {
            return false;
        }
        byte[] body = config.content().getBytes(StandardCharsets.UTF_8);
        ConfigRoutes.noCacheHeaders(resp::setHeader);
        ConfigRoutes.configHeaders(config, resp::setHeader);
        resp.setContentType(ConfigRoutes.CONTENT_TYPE);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
        return true;
    }
}
