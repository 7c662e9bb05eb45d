package io.lodestar.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads and initialises the HTTP stack's classes (Javalin and Kotlin, Jetty, Jackson, the Prometheus
 * registry) on a background thread while the store starts. Both phases are bound by class loading
 * (about 1.3 s each on a 2-core machine), so overlapping them takes that much off the time to
 * readiness. It binds no port, starts no thread pool and keeps nothing.
 */
public final class HttpStackWarmup {
    private static final Logger LOG = LoggerFactory.getLogger(HttpStackWarmup.class);

    private HttpStackWarmup() {}

    public static void startInBackground() {
        Thread t = new Thread(HttpStackWarmup::run, "http-warmup");
        t.setDaemon(true);
        t.start();
    }

    private static void run() {
        try {
            Javalin.create(config -> config.showJavalinBanner = false);
            Server server = new Server();
            server.addConnector(new ServerConnector(server));
            server.setHandler(new ServletContextHandler(ServletContextHandler.SESSIONS));
            new ObjectMapper().writeValueAsString(Map.of("warm", List.of(1, "up")));
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT).close();
        } catch (Exception | LinkageError e) {
            LOG.debug("HTTP warm-up skipped: {}", e.toString()); // only start-up time is lost
        }
    }
}
