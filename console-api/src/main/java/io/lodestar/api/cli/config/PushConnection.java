package io.lodestar.api.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One WebSocket connection to a server's push channel ({@code /lodestar/v1/push}, docs/http-api.md):
 * the HttpClient's threads put each JSON message received into a queue, and the end of the
 * connection as a {@code {"type":"closed"}} message; the one command thread takes them with {@link
 * #next}. One connection per subscription: a resumption is a new connection.
 */
final class PushConnection implements WebSocket.Listener {
    static final String PATH = "/lodestar/v1/push";
    static final String CLOSED = "closed";

    private final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
    private final StringBuilder partial = new StringBuilder();
    private WebSocket socket;

    /** The handshake was answered with {@code status} (e.g. 403 for a refused token). */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        final int status;

        Refused(int status) {
            super("the server answered " + status + " to the WebSocket handshake");
            this.status = status;
        }
    }

    private PushConnection() {}

    /** Opens the push channel of {@code server} (its http(s) base URI), sending {@code token} as a Bearer header. */
    static PushConnection open(HttpClient http, URI server, String token) throws IOException, InterruptedException {
        PushConnection connection = new PushConnection();
        String scheme = server.getScheme().equals("https") ? "wss" : "ws";
        URI uri = URI.create(scheme + "://" + server.getRawAuthority() + PATH);
        WebSocket.Builder builder = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        try {
            connection.socket = builder.buildAsync(uri, connection).get(15, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause != null && !(cause instanceof WebSocketHandshakeException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof WebSocketHandshakeException refused) {
                throw new Refused(refused.getResponse().statusCode());
            }
            throw new IOException(cause == null ? e.toString() : String.valueOf(cause.getMessage()), cause);
        } catch (TimeoutException e) {
            throw new IOException("no WebSocket handshake within 15 s");
        }
        return connection;
    }

    void send(JsonNode message) throws IOException {
        try {
            socket.sendText(message.toString(), true).get(15, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("cannot send: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    /** The next message, or null if none arrived within {@code timeout}. */
    JsonNode next(Duration timeout) throws InterruptedException {
        return received.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void close() {
        if (socket != null) {
            socket.abort();
        }
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            String text = partial.toString();
            partial.setLength(0);
            try {
                received.add(Json.MAPPER.readTree(text));
            } catch (IOException e) {
                received.add(closed("the server sent something that is not JSON: " + text));
            }
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        received.add(closed("closed by the server (" + statusCode + (reason.isEmpty() ? "" : " " + reason) + ")"));
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        received.add(closed(error.getMessage() == null ? error.toString() : error.getMessage()));
    }

    private static JsonNode closed(String why) {
        ObjectNode n = Json.MAPPER.createObjectNode();
        return n.put("type", CLOSED).put("reason", why);
    }
}
