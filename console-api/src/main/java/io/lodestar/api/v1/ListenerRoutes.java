package io.lodestar.api.v1;

import static io.javalin.http.HandlerType.POST;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.listen.LongPollRegistry;
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

    private ListenerRoutes() {}

    public static void install(Routes routes, LongPollRegistry registry) {
        // also taken in front of Javalin: a notify round is a publish and a poll, and a poll through
        // Javalin's servlet cost about as much again as the rest of it
        routes.add(POST, PATH, ConfigV1Requests::listen, (op, answer) -> listen(op, answer, registry))
                .fast(
                        POST,
                        PATH,
                        exchange -> true,
                        ConfigV1Requests::listen,
                        (op, answer) -> listen(op, answer, registry));
        // Lodestar's own: how many polls this node holds (operators; tests wait on it)
        routes.app().get(HELD_PATH, ctx -> ctx.json(java.util.Map.of("held", registry.held())));
    }

    /**
     * Hands one poll to {@code registry}, answering once it completes. The socket's address decides
     * which gray release the client is served; never a header.
     */
    private static void listen(ConfigOp.Listen op, Answer answer, LongPollRegistry registry) {
        CompletableFuture<String> body = registry.poll(op.entries(), answer.remoteAddr(), op.timeoutMs(), op.noHangup())
                .thenApply(ListenerRoutes::body);
        answer.answerHeader(PRAGMA, NO_CACHE).answerHeader(CACHE_CONTROL, NO_STORE);
        answer.answerWhenDone(CONTENT_TYPE, body);
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
