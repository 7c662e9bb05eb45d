package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.lodestar.api.http.Exchange;
import io.lodestar.api.http.FastPaths;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.listen.ListeningConfigs;
import io.lodestar.config.listen.ListeningEntry;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.error.InvalidRequestException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code POST /nacos/v1/cs/configs/listener}: config long-polling as nacos-client 1.4.x speaks it.
 * A held poll is an async request: Jetty's thread is released until the registry answers.
 */
public final class ListenerRoutes {
    public static final String PATH = "/nacos/v1/cs/configs/listener";
    static final String CONTENT_TYPE = "text/plain;charset=UTF-8";
    private static final String PRAGMA = "Pragma";
    private static final String NO_CACHE = "no-cache";
    private static final String CACHE_CONTROL = "Cache-Control";
    private static final String NO_STORE = "no-cache,no-store";
    private static final String HELD_PATH = "/lodestar/v1/config/listeners";
    private static final String TIMEOUT_HEADER = "Long-Pulling-Timeout";
    private static final String NO_HANGUP_HEADER = "Long-Pulling-Timeout-No-Hangup";

    private ListenerRoutes() {}

    public static void install(Javalin app, LongPollRegistry registry) {
        app.post(PATH, JavalinExchange.handler(exchange -> listen(exchange, registry)));
        // Lodestar's own: how many polls this node holds (operators; tests wait on it)
        app.get(HELD_PATH, ctx -> ctx.json(java.util.Map.of("held", registry.held())));
    }

    /**
     * Also taken in front of Javalin: a notify round is a publish and a poll, and a poll through
     * Javalin's servlet cost about as much again as the rest of it.
     */
    public static void addFastPaths(FastPaths fast, LongPollRegistry registry) {
        fast.add("POST", PATH, exchange -> listen(exchange, registry));
    }

    /**
     * Reads one poll as Nacos does and hands it to {@code registry}, answering once it completes.
     * Bad input is refused before anything is held. The socket's address decides which gray
     * release the client is served; never a header.
     */
    private static void listen(Exchange exchange, LongPollRegistry registry) {
        List<ListeningEntry> entries =
                ListeningConfigs.parseParam(exchange.params().get(ListeningConfigs.FIELD));
        String timeoutHeader = exchange.header(TIMEOUT_HEADER);
        // without the timeout header Nacos answers at once (short polling), as with No-Hangup
        boolean noHangup = timeoutHeader == null || "true".equalsIgnoreCase(exchange.header(NO_HANGUP_HEADER));
        long timeout = timeoutHeader == null ? 0 : timeout(timeoutHeader);
        CompletableFuture<String> answer =
                registry.poll(entries, exchange.remoteAddr(), timeout, noHangup).thenApply(ListenerRoutes::body);
        exchange.answerHeader(PRAGMA, NO_CACHE).answerHeader(CACHE_CONTROL, NO_STORE);
        exchange.answerWhenDone(CONTENT_TYPE, answer);
    }

    private static long timeout(String header) {
        long ms;
        try {
            ms = Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(TIMEOUT_HEADER, "'" + header + "' is not a number of milliseconds");
        }
        if (ms < 0) {
            throw new InvalidRequestException(TIMEOUT_HEADER, "must not be negative: " + ms);
        }
        return ms;
    }

    /** {@code URLEncoder.encode("dataId^Bgroup[^Btenant]^A...")} and a newline; empty when nothing changed. */
    static String body(List<ConfigKey> changed) {
        if (changed.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        for (ConfigKey key : changed) {
            sb.append(key.dataId()).append('\u0002').append(key.group());
            if (!key.tenant().isEmpty()) {
                sb.append('\u0002').append(key.tenant());
            }
            sb.append('\u0001');
        }
        return URLEncoder.encode(sb.toString(), StandardCharsets.UTF_8) + "\n";
    }
}
