package io.lodestar.api.http;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One request a {@link FastPaths.Route} answers: its parameters, its peer, and the answers Javalin's routes give. */
public final class FastExchange {
    private static final Logger LOG = LoggerFactory.getLogger(FastExchange.class);

    private final HttpServletRequest req;
    private final HttpServletResponse resp;
    private final Map<String, String> params;
    /** Told the status as the answer is written (for the request metrics). */
    private final IntConsumer answered;

    FastExchange(HttpServletRequest req, HttpServletResponse resp, Map<String, String> params, IntConsumer answered) {
        this.req = req;
        this.resp = resp;
        this.params = params;
        this.answered = answered;
    }

    /** The query's and the form's parameters (each name occurs once). */
    public Params params() {
        return params::get;
    }

    /** The names of the parameters given. */
    public Set<String> names() {
        return params.keySet();
    }

    /** The request header's value, or null. */
    public String header(String name) {
        return req.getHeader(name);
    }

    /** The connection's peer address, from the socket. */
    public String remoteAddr() {
        return req.getRemoteAddr();
    }

    public HttpServletResponse response() {
        return resp;
    }

    /**
     * Answers 200 with the JSON {@code answer} computes and returns true; returns false having
     * written nothing if it throws (the route then answers, naming the problem).
     */
    public boolean jsonUnlessRefused(Supplier<byte[]> answer) throws IOException {
        byte[] json;
        try {
            json = answer.get();
        } catch (RuntimeException refused) {
            return false;
        }
        write("application/json", json);
        return true;
    }

    /** Answers 200 with {@code body} as plain text, as {@code ctx.result} does. */
    public void text(String body) throws IOException {
        write("text/plain", body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Answers with {@code text} once it completes, as {@code ctx.future} with {@code ctx.result}
     * does: a failure is answered as {@link ErrorMapping} maps it. Until then the request stays open
     * without holding a thread; the store bounds how long a write may take.
     */
    public void textWhenDone(CompletableFuture<String> text) {
        textWhenDone("text/plain", text);
    }

    /** As {@link #textWhenDone(CompletableFuture)}, the text answered as {@code contentType}. */
    public void textWhenDone(String contentType, CompletableFuture<String> text) {
        if (text.isDone()) {
            answer(contentType, text);
            return;
        }
        AsyncContext async = req.startAsync();
        async.setTimeout(0);
        text.whenComplete((body, error) -> {
            try {
                answer(contentType, text);
            } finally {
                async.complete();
            }
        });
    }

    private void answer(String contentType, CompletableFuture<String> done) {
        try {
            String body;
            try {
                body = done.join();
            } catch (CompletionException | CancellationException e) {
                ErrorMapping.Mapped m = ErrorMapping.map(e, req.getMethod() + " " + req.getRequestURI());
                resp.setStatus(m.status());
                body = m.message();
            }
            write(contentType, body.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            LOG.debug("answering {} {} failed: {}", req.getMethod(), req.getRequestURI(), e.toString());
        }
    }

    /** Answers with {@code body} of {@code contentType} (and the status and headers set before). */
    public void write(String contentType, byte[] body) throws IOException {
        // counted before the client can have the answer, so a scrape after it sees this request
        answered.accept(resp.getStatus());
        resp.setContentType(contentType);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
