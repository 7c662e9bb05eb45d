package io.lodestar.api.v1;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.http.Params;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.listen.ListeningConfigs;
import io.lodestar.config.listen.ListeningEntry;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.kv.InvalidRequestException;
import java.net.URLDecoder;
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
    static final String PRAGMA = "Pragma";
    static final String NO_CACHE = "no-cache";
    static final String CACHE_CONTROL = "Cache-Control";
    static final String NO_STORE = "no-cache,no-store";
    private static final String HELD_PATH = "/lodestar/v1/config/listeners";
    static final String TIMEOUT_HEADER = "Long-Pulling-Timeout";
    static final String NO_HANGUP_HEADER = "Long-Pulling-Timeout-No-Hangup";

    private ListenerRoutes() {}

    public static void install(Javalin app, LongPollRegistry registry) {
        app.post(PATH, ctx -> listen(ctx, registry));
        // Lodestar's own: how many polls this node holds (operators; tests wait on it)
        app.get(HELD_PATH, ctx -> ctx.json(java.util.Map.of("held", registry.held())));
    }

    private static void listen(Context ctx, LongPollRegistry registry) {
        // the socket's address decides which gray release the client is served; never a header
        CompletableFuture<String> answer = poll(registry, Params.get(ctx, ListeningConfigs.FIELD),
                ctx.header(TIMEOUT_HEADER), ctx.header(NO_HANGUP_HEADER), ctx.ip());
        ctx.header(PRAGMA, NO_CACHE).header(CACHE_CONTROL, NO_STORE);
        ctx.future(() -> answer.thenAccept(body -> ctx.contentType(CONTENT_TYPE).result(body)));
    }

    /**
     * Reads one poll as Nacos does and hands it to {@code registry}: the answer's body once it
     * completes. Bad input throws {@link InvalidRequestException} before anything is held; shared
     * with {@link PlainConfigListen}.
     */
    static CompletableFuture<String> poll(LongPollRegistry registry, String listeningConfigs, String timeoutHeader,
                                          String noHangupHeader, String clientIp) {
        List<ListeningEntry> entries = ListeningConfigs.parse(decodeAgain(listeningConfigs));
        // without the timeout header Nacos answers at once (short polling), as with No-Hangup
        boolean noHangup = timeoutHeader == null || "true".equalsIgnoreCase(noHangupHeader);
        long timeout = timeoutHeader == null ? 0 : timeout(timeoutHeader);
        return registry.poll(entries, clientIp, timeout, noHangup).thenApply(ListenerRoutes::body);
    }

    /** Real Nacos URL-decodes the value once more after form decoding. */
    private static String decodeAgain(String value) {
        if (value == null) {
            return null;
        }
        try {
            return URLDecoder.decode(value, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(ListeningConfigs.FIELD, "bad URL encoding: " + e.getMessage());
        }
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
