package io.lodestar.api.http;

import io.lodestar.api.request.Scoped;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.ObjIntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A request {@link FastPaths} took, as an {@link Exchange}, answered on the servlet response as Javalin would answer it. */
public final class ServletExchange implements Exchange {
    private static final Logger LOG = LoggerFactory.getLogger(ServletExchange.class);
    private static final String TEXT = "text/plain";

    private final HttpServletRequest req;
    private final HttpServletResponse resp;
    private final Map<String, String> params;
    private final String operation;
    private String caller; // set by the checks, read by the endpoint, one thread after the other
    private Scoped typed; // likewise
    /** Told the status as the answer is written (for the request metrics). */
    private final ObjIntConsumer<ServletExchange> answered;

    ServletExchange(
            HttpServletRequest req,
            HttpServletResponse resp,
            Map<String, String> params,
            String operation,
            ObjIntConsumer<ServletExchange> answered) {
        this.req = req;
        this.resp = resp;
        this.params = params;
        this.operation = operation;
        this.answered = answered;
    }

    @Override
    public Params params() {
        return params::get;
    }

    /** The names of the parameters given (each occurs once). */
    public Set<String> names() {
        return params.keySet();
    }

    @Override
    public String header(String name) {
        return req.getHeader(name);
    }

    @Override
    public String remoteAddr() {
        return req.getRemoteAddr();
    }

    @Override
    public String caller() {
        return caller;
    }

    @Override
    public void caller(String username) {
        this.caller = username;
    }

    @Override
    public String operation() {
        return operation;
    }

    @Override
    public Scoped typed() {
        return typed;
    }

    @Override
    public void typed(Scoped request) {
        this.typed = request;
    }

    @Override
    public Answer answerHeader(String name, String value) {
        resp.setHeader(name, value);
        return this;
    }

    @Override
    public void answer(Body body) {
        try {
            resp.setStatus(body.status());
            write(body.contentType(), body.bytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void answerStream(String contentType, BodyWriter body) {
        resp.setStatus(200);
        resp.setContentType(contentType);
        try {
            body.writeTo(new CountedOnFirstByte(resp.getOutputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The response stream, telling the request metrics of the answer as its first byte goes out. */
    private final class CountedOnFirstByte extends FilterOutputStream {
        private boolean counted;

        CountedOnFirstByte(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            count();
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count();
            out.write(b, off, len);
        }

        private void count() {
            if (!counted) {
                counted = true;
                answered.accept(ServletExchange.this, resp.getStatus());
            }
        }
    }

    @Override
    public void answerWhenDone(CompletableFuture<Body> body) {
        if (body.isDone()) {
            answerOutcome(body);
            return;
        }
        AsyncContext async = req.startAsync();
        async.setTimeout(0); // the store bounds how long a write may take; a long-poll bounds itself
        WebThreads.answerOn(req, body).whenComplete((answer, error) -> {
            try {
                answerOutcome(body);
            } finally {
                async.complete();
            }
        });
    }

    /** Answers what {@code e} says, as {@link ErrorMapping} maps it. */
    void fail(Throwable e) {
        ErrorMapping.Mapped m = ErrorMapping.map(e, req.getMethod() + " " + req.getRequestURI());
        resp.setStatus(m.status());
        try {
            write(TEXT, m.message().getBytes(StandardCharsets.UTF_8));
        } catch (IOException io) {
            LOG.debug("answering {} {} failed: {}", req.getMethod(), req.getRequestURI(), io.toString());
        }
    }

    private void answerOutcome(CompletableFuture<Body> done) {
        Body body;
        try {
            body = done.join();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        try {
            resp.setStatus(body.status());
            write(body.contentType(), body.bytes());
        } catch (IOException e) {
            LOG.debug("answering {} {} failed: {}", req.getMethod(), req.getRequestURI(), e.toString());
        }
    }

    private void write(String contentType, byte[] body) throws IOException {
        // counted before the client can have the answer, so a scrape after it sees this request
        answered.accept(this, resp.getStatus());
        resp.setContentType(contentType);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
