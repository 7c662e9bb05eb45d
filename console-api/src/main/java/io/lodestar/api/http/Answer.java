package io.lodestar.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * How a typed route's handler answers: it sees the caller and the socket's address, never the
 * request's parameters, which only its parser reads. Errors are not answered here: a handler
 * throws them, or fails the future it answers with, and {@link ErrorMapping} answers them.
 */
public interface Answer {
    ObjectMapper JSON = Json.MAPPER;
    String JSON_TYPE = "application/json";

    /** A whole answer: status, content type and body. */
    record Body(int status, String contentType, byte[] bytes) {
        public static Body json(int status, Object value) {
            try {
                return new Body(status, JSON_TYPE, JSON.writeValueAsBytes(value));
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The connection's peer address, from the socket (never from a header). */
    String remoteAddr();

    /** The user the request's token proved; null with authentication off. */
    String caller();

    /** Sets a header of the answer; call before answering. */
    Answer answerHeader(String name, String value);

    /** Answers {@code body} now. */
    void answer(Body body);

    /** Writes a body to the answer as it is produced. */
    @FunctionalInterface
    interface BodyWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Answers 200 as {@code contentType} with what {@code body} writes, sent as it is written: for a
     * body too large to hold in memory. A failure before the first byte is answered as any other;
     * one after it cuts the answer short.
     */
    void answerStream(String contentType, BodyWriter body);

    /**
     * Answers with what {@code body} completes with, or the failure it completes with as {@link
     * ErrorMapping} maps it. Until then the request holds no thread.
     */
    void answerWhenDone(CompletableFuture<Body> body);

    /** Answers 200 with {@code body} as {@code contentType}. */
    default void answer(String contentType, byte[] body) {
        answer(new Body(200, contentType, body));
    }

    default void answer(String contentType, String body) {
        answer(contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Answers 200 with {@code value} as JSON. */
    default void answerJson(Object value) {
        answer(Body.json(200, value));
    }

    /** Answers 200 with the text {@code body} completes with, as {@code contentType}. */
    default void answerWhenDone(String contentType, CompletableFuture<String> body) {
        answerWhenDone(body.thenApply(text -> new Body(200, contentType, text.getBytes(StandardCharsets.UTF_8))));
    }
}
