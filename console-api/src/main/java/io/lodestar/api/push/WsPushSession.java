package io.lodestar.api.push;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.javalin.websocket.WsContext;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.listen.ConfigListener;
import io.lodestar.config.listen.Notice;
import io.lodestar.config.listen.Pull;
import io.lodestar.config.push.PushHub;
import io.lodestar.config.push.PushSession;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One WebSocket connection as the {@link io.lodestar.config.push.PushHub} sees it; sends are serialized. */
final class WsPushSession implements PushSession, ServicePushes.Subscriber {
    static final int GOING_AWAY = 1001;
    static final int TRY_AGAIN_LATER = 1013;

    private final WsContext ctx;
    /** The keys subscribed, each with the MD5 the client holds as far as this node knows (null: not said). */
    private final Map<ConfigKey, String> keys = new HashMap<>();
    /** The last {@code changed} message of each key subscribed, and the last GET seen of it: gone with the key. */
    private final Map<ConfigKey, Notice> notices = new HashMap<>();

    private final Map<ConfigKey, Pull> pulls = new HashMap<>();

    /** The client's address, read once: a closed socket may no longer tell it. */
    private final String address;

    WsPushSession(WsContext ctx) {
        this.ctx = ctx;
        this.address = address(ctx.session.getRemoteAddress());
    }

    /** Adds to the connection's keys unless that makes more than {@code max}. */
    synchronized boolean addKeys(List<PushHub.Subscription> more, int max) {
        Set<ConfigKey> all = new HashSet<>(keys.keySet());
        more.forEach(sub -> all.add(sub.key()));
        if (all.size() > max) {
            return false;
        }
        more.forEach(sub -> keys.put(sub.key(), sub.md5()));
        return true;
    }

    /** The client's address, from the socket. */
    String clientAddress() {
        return address;
    }

    /** The keys subscribed with the MD5 the client was last told of (or gave), a copy. */
    synchronized List<ConfigListener> listeners() {
        String address = clientAddress();
        List<ConfigListener> out = new ArrayList<>();
        keys.forEach((key, md5) -> out.add(new ConfigListener(key, address, md5, notices.get(key), pulls.get(key))));
        return out;
    }

    /** The key's listener on this connection, or null when it does not subscribe to it. */
    synchronized ConfigListener listener(ConfigKey key) {
        return keys.containsKey(key)
                ? new ConfigListener(key, clientAddress(), keys.get(key), notices.get(key), pulls.get(key))
                : null;
    }

    synchronized void removeKeys(List<ConfigKey> gone) {
        gone.forEach(keys::remove);
        gone.forEach(notices::remove);
        gone.forEach(pulls::remove);
    }

    /** Records that the client's address read {@code key} and was served {@code md5}, if it subscribes to the key. */
    synchronized void pulled(ConfigKey key, String md5) {
        if (keys.containsKey(key)) {
            pulls.put(key, new Pull(md5, System.currentTimeMillis(), Pull.HTTP));
        }
    }

    @Override
    public void send(ConfigChangeLog.Change change) {
        synchronized (this) {
            // what the client holds once it pulls what it is told of: the operator's view shows it
            String md5 = change.deleted() ? "" : change.md5();
            if (keys.computeIfPresent(change.key(), (k, old) -> md5) != null) {
                notices.put(change.key(), new Notice(md5, System.currentTimeMillis(), Notice.PUSH_CHANNEL, null, null));
            }
        }
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

    @Override
    public void sendJson(Map<String, ?> message) {
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

    /** A socket's peer as an IP literal (no port, no host name), or null. */
    private static String address(java.net.SocketAddress socket) {
        return socket instanceof java.net.InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress()
                : null;
    }
}
