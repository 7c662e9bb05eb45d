package io.lodestar.api.push;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.javalin.websocket.WsContext;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.push.PushSession;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One WebSocket connection as the {@link io.lodestar.config.push.PushHub} sees it; sends are serialized. */
final class WsPushSession implements PushSession {
    static final int GOING_AWAY = 1001;
    static final int TRY_AGAIN_LATER = 1013;

    private final WsContext ctx;
    private final Set<ConfigKey> keys = new HashSet<>();

    WsPushSession(WsContext ctx) {
        this.ctx = ctx;
    }

    /** Adds to the connection's keys unless that makes more than {@code max}. */
    synchronized boolean addKeys(List<ConfigKey> more, int max) {
        Set<ConfigKey> all = new HashSet<>(keys);
        all.addAll(more);
        if (all.size() > max) {
            return false;
        }
        keys.addAll(more);
        return true;
    }

    synchronized void removeKeys(List<ConfigKey> gone) {
        gone.forEach(keys::remove);
    }

    @Override
    public void send(ConfigChangeLog.Change change) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "changed");
        m.put("dataId", change.key().dataId());
        m.put("group", change.key().group());
        m.put("tenant", change.key().tenant());
        m.put("revision", change.revision());
        if (change.deleted()) {
            m.put("deleted", true);
        } else {
            m.put("md5", change.md5());
        }
        sendJson(m);
    }

    @Override
    public void subscribed(long revision) {
        sendJson(Map.of("type", "subscribed", "revision", revision));
    }

    @Override
    public void close(CloseReason reason) {
        if (reason == CloseReason.TOO_SLOW) {
            ctx.closeSession(TRY_AGAIN_LATER, "too slow: reconnect with the last revision seen");
        } else {
            ctx.closeSession(GOING_AWAY, "server shutting down: reconnect with the last revision seen");
        }
    }

    void error(String message) {
        sendJson(Map.of("type", "error", "message", message));
    }

    void sendJson(Map<String, ?> message) {
        String text;
        try {
            text = PushRoutes.JSON.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        synchronized (this) {
            if (ctx.session.isOpen()) {
                ctx.send(text);
            }
        }
    }

    @Override
    public String toString() {
        return "push session " + ctx.sessionId();
    }
}
