package io.lodestar.it.bench;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.AbstractHandler;

/**
 * The ceiling of the HTTP stack under Lodestar's reads: the Jetty the server runs on, alone, with
 * one bare handler that answers every GET as Lodestar answers a config read of 128 bytes (same
 * status, headers and body size) and every POST with {@code true}, doing no other work. Run it on
 * the server jar's classpath and point {@code wrk-bench.sh --scenario config-get} at it, side by
 * side with a real server: what the real server does per request costs the difference.
 *
 * <pre>BENCH_JAVA_OPTS=-Xmx512m it-tests/bench/run.sh HttpCeiling [--port 18848]</pre>
 */
public final class HttpCeiling {
    public static void main(String[] args) throws Exception {
        int port = 18848;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--help", "-h" -> {
                    System.out.println("usage: it-tests/bench/run.sh HttpCeiling [--port N]  (default 18848)");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (try --help)");
            }
        }
        byte[] config = "x".repeat(128).getBytes(StandardCharsets.UTF_8);
        byte[] ok = "true".getBytes(StandardCharsets.UTF_8);
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setPort(port);
        connector.setAcceptQueueSize(8192); // as Lodestar's connector
        server.addConnector(connector);
        server.setHandler(new AbstractHandler() {
            @Override
            public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
                    throws IOException {
                base.setHandled(true);
                if ("POST".equals(req.getMethod())) {
                    req.getInputStream().readAllBytes();
                    write(resp, "text/plain", ok);
                    return;
                }
                req.getParameter("dataId"); // the query is parsed, as any real read must
                resp.setHeader("Pragma", "no-cache");
                resp.setHeader("Cache-Control", "no-cache,no-store");
                resp.setHeader("Config-Type", "text");
                resp.setHeader("Content-MD5", "0123456789abcdef0123456789abcdef");
                write(resp, "text/plain;charset=utf-8", config);
            }
        });
        server.start();
        System.err.println("HttpCeiling: bare Jetty handler on port " + port + "; Ctrl-C stops it");
        server.join();
    }

    private static void write(HttpServletResponse resp, String contentType, byte[] body) throws IOException {
        resp.setContentType(contentType);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
