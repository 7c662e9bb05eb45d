package io.lodestar.api.http;

import io.lodestar.api.metrics.Metrics;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Answers the hottest requests (a client reading its config, listing instances, beating,
 * registering) in front of Javalin's servlet, which costs as much as the rest of such a request: a
 * bare handler on the same Jetty serves about 1.7x the requests. Each {@link Route} shares its
 * parsing and its answer with the Javalin route it stands in for and answers only the common
 * case; it declines anything else (an unusual request, an error) having written nothing, and the
 * request goes on to the Javalin route, which owns every error. A form body read here is handed on
 * to it intact.
 *
 * <p>These requests never pass Javalin's before-handlers (there are none today): whatever is added
 * there for every request, an authentication check above all, must be enforced here as well.
 */
public final class FastPaths extends HandlerWrapper {
    /** Form bodies larger than this are not read here (registrations and beats are far smaller). */
    static final int MAX_FORM_BYTES = 16 * 1024;
    private static final String FORM = "application/x-www-form-urlencoded";

    /** One route answered here. */
    @FunctionalInterface
    public interface Route {
        /**
         * Answers through {@code exchange} and returns true, or returns false having written
         * nothing: Javalin's route then answers.
         */
        boolean answer(FastExchange exchange) throws IOException;
    }

    private final Map<String, Route> routes = new HashMap<>();
    private final Metrics metrics;

    public FastPaths(Metrics metrics) {
        this.metrics = metrics;
    }

    /** Answers {@code method path} with {@code route} first; call before the server starts. */
    public FastPaths add(String method, String path, Route route) {
        routes.put(method + ' ' + path, route);
        return this;
    }

    @Override
    public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        Route route = routes.get(req.getMethod() + ' ' + target);
        if (route == null) {
            super.handle(target, base, req, resp);
            return;
        }
        long start = System.nanoTime();
        byte[] body = formBody(req);
        Map<String, String> params = body == null ? null : FormCodec.params(req.getQueryString(), body);
        FastExchange exchange = params == null ? null : new FastExchange(req, resp, params,
                status -> metrics.record(req.getMethod(), target, status, System.nanoTime() - start));
        if (exchange != null && route.answer(exchange)) {
            base.setHandled(true);
            return;
        }
        super.handle(target, base, body == null || body.length == 0 ? req : new ReplayedBody(req, body), resp);
    }

    /**
     * The request's form body (empty without one), or null when it is anything this handler does
     * not parse: another content type or charset, a body without a length or too large to read here.
     */
    private static byte[] formBody(HttpServletRequest req) throws IOException {
        String contentType = req.getContentType();
        long length = req.getContentLengthLong();
        if (contentType == null) {
            return length <= 0 ? new byte[0] : null;
        }
        if (!contentType.startsWith(FORM) || (req.getCharacterEncoding() != null
                && !"UTF-8".equalsIgnoreCase(req.getCharacterEncoding()))) {
            return null;
        }
        if (length < 0 || length > MAX_FORM_BYTES) {
            return null;
        }
        return req.getInputStream().readNBytes((int) length);
    }

    /** The request with the body this handler already read, for the Javalin route to read again. */
    private static final class ReplayedBody extends HttpServletRequestWrapper {
        private final byte[] body;

        ReplayedBody(HttpServletRequest req, byte[] body) {
            super(req);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body was read already; read it blocking");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }
    }
}
