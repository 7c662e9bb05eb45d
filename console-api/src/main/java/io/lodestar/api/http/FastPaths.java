package io.lodestar.api.http;

import io.lodestar.api.request.RequestChecks;
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
import java.util.function.Predicate;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.HandlerWrapper;

/**
 * Takes the hottest requests (a client reading its config, publishing, long-polling, listing
 * instances, beating, registering) in front of Javalin's servlet, whose per-request work is a large
 * share of such a request (it-tests/bench/RESULTS.md, against a bare Jetty handler). Each route runs
 * the same {@link Endpoint} that its Javalin route runs, after the same {@link RequestChecks}, and
 * its errors are answered by the same {@link ErrorMapping}. A request is left to Javalin only for a
 * reason known before any work: a body that is not a small UTF-8 form, a parameter given twice, or
 * a parameter the route's {@link Route#takes} predicate leaves to Javalin (an import, a search).
 */
public final class FastPaths extends HandlerWrapper {
    /** Form bodies larger than this are not read here (registrations and beats are far smaller). */
    static final int MAX_FORM_BYTES = 16 * 1024;

    private static final String FORM = "application/x-www-form-urlencoded";

    /**
     * One route taken here: {@code takes} looks only at the parameter names and headers (it does no
     * work), {@code endpoint} is the Javalin route's own.
     */
    public record Route(Predicate<ServletExchange> takes, Endpoint endpoint) {}

    private final Map<String, Route> routes = new HashMap<>();
    /** Told how long each request taken here took, and how it was answered (the request metrics). */
    @FunctionalInterface
    public interface Timing {
        void record(String method, String route, int status, long nanos);
    }

    private final Timing timing;
    private final RequestChecks checks;

    public FastPaths(Timing timing, RequestChecks checks) {
        this.timing = timing;
        this.checks = checks;
    }

    /** Takes every {@code method path} request that {@code takes} accepts; call before the server starts. */
    public FastPaths add(String method, String path, Predicate<ServletExchange> takes, Endpoint endpoint) {
        routes.put(method + ' ' + path, new Route(takes, endpoint));
        return this;
    }

    /** The operations taken here, as {@code METHOD path}: each is also a Javalin route. */
    public java.util.Set<String> operations() {
        return java.util.Set.copyOf(routes.keySet());
    }

    /** Takes every {@code method path} request that is a small form. */
    public FastPaths add(String method, String path, Endpoint endpoint) {
        return add(method, path, exchange -> true, endpoint);
    }

    @Override
    public void handle(String target, Request base, HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        String operation = req.getMethod() + ' ' + target;
        Route route = routes.get(operation);
        if (route == null) {
            super.handle(target, base, req, resp);
            return;
        }
        long start = System.nanoTime();
        byte[] body = formBody(req);
        Map<String, String> params = body == null ? null : FormCodec.params(req.getQueryString(), body);
        ServletExchange exchange = params == null
                ? null
                : new ServletExchange(req, resp, params, operation, (answered, status) -> {
                    timing.record(req.getMethod(), target, status, System.nanoTime() - start);
                    checks.completed(answered, status);
                });
        if (exchange == null || !route.takes().test(exchange)) {
            super.handle(target, base, body == null || body.length == 0 ? req : new ReplayedBody(req, body), resp);
            return;
        }
        base.setHandled(true);
        try {
            checks.check(exchange);
            route.endpoint().handle(exchange);
        } catch (Exception e) {
            exchange.fail(e);
        }
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
        if (!contentType.startsWith(FORM)
                || (req.getCharacterEncoding() != null && !"UTF-8".equalsIgnoreCase(req.getCharacterEncoding()))) {
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
