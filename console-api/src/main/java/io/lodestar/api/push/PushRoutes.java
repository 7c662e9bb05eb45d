package io.lodestar.api.push;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsContext;
import io.javalin.websocket.WsMessageContext;
import io.lodestar.api.http.JavalinExchange;
import io.lodestar.api.json.Json;
import io.lodestar.api.request.Names;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.listen.ConfigListener;
import io.lodestar.config.push.PushHub;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.NamingChangeListener;
import io.lodestar.naming.model.ServiceKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /lodestar/v1/push}: the config (and service) push channel over WebSocket (docs/http-api.md, "Push channel"
 * section is the wire format). Notices only say that a key changed; clients pull the content with
 * the ordinary GET. Malformed requests get an {@code error} message and the connection stays;
 * hostile input (not JSON, oversized, too many keys) closes it with 1008.
 */
public final class PushRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(PushRoutes.class);
    public static final String PATH = "/lodestar/v1/push";
    /**
     * The subprotocol a browser offers beside its token ({@code Auth.WS_BEARER_PROTOCOL_PREFIX}):
     * the server selects it, as a browser requires of a server when it offers any. Clients that offer
     * none get none, as before.
     */
    public static final String PROTOCOL = "lodestar.push.v1";
    /** Keys one connection may subscribe to, in one message and in all. */
    static final int MAX_KEYS = 1000;
    /** Our own limit on a text message; Jetty's (twice this) closes with 1009 beyond it. */
    static final int MAX_MESSAGE_CHARS = 1 << 20;

    static final int POLICY_VIOLATION = 1008;
    private static final Duration IDLE_TIMEOUT = Duration.ofMinutes(2);
    private static final long PING_SECONDS = 20;

    static final ObjectMapper JSON = Json.MAPPER;

    private final PushHub hub;
    private final ReadCheck reads;
    private final ServiceReadCheck serviceReads;
    private final ServicePushes services;
    private final Map<String, WsPushSession> sessions = new ConcurrentHashMap<>();
    /** The sessions by client address: a config read from one is recorded in O(1) (the read is the hot path). */
    private final Map<String, java.util.Set<WsPushSession>> byAddress = new ConcurrentHashMap<>();

    /** Whether the connection's caller (null with authentication off) may read a key. */
    @FunctionalInterface
    public interface ReadCheck {
        /** Throws {@link io.lodestar.error.ForbiddenException} naming the key when {@code caller} may not read it. */
        void check(String caller, ConfigKey key);
    }

    /** Whether the connection's caller (null with authentication off) may read a service. */
    @FunctionalInterface
    public interface ServiceReadCheck {
        /** Throws {@link io.lodestar.error.ForbiddenException} naming the service when {@code caller} may not read it. */
        void check(String caller, ServiceKey service);
    }

    private PushRoutes(PushHub hub, ReadCheck reads, ServiceReadCheck serviceReads, ServicePushes services) {
        this.hub = hub;
        this.reads = reads;
        this.serviceReads = serviceReads;
        this.services = services;
    }

    /**
     * Serves the channel at {@link #PATH}: config notices from {@code hub}, service notices from what
     * {@code naming} reports to the listener it is given (for the server's life; its notices are
     * written on one daemon thread of this channel's, never on the naming notifier's). The answer
     * lists who listens through it.
     */
    public static PushRoutes install(
            Javalin app,
            PushHub hub,
            ReadCheck reads,
            Function<NamingChangeListener, AutoCloseable> naming,
            ServiceReadCheck serviceReads) {
        ServicePushes services = new ServicePushes(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "push-services");
            t.setDaemon(true);
            return t;
        }));
        // for the server's life: closing the naming service ends it
        var unused = naming.apply(services::serviceChanged);
        PushRoutes routes = new PushRoutes(hub, reads, serviceReads, services);
        app.ws(PATH, routes::configure);
        // after the access check (installed first): only an accepted upgrade gets here
        app.wsBeforeUpgrade(PATH, ctx -> {
            if (offers(ctx.header("Sec-WebSocket-Protocol"), PROTOCOL)) {
                ctx.header("Sec-WebSocket-Protocol", PROTOCOL);
            }
        });
        return routes;
    }

    /** Whether a {@code Sec-WebSocket-Protocol} offer names {@code protocol}. */
    static boolean offers(String offered, String protocol) {
        if (offered == null) {
            return false;
        }
        for (String p : offered.split(",")) {
            if (p.trim().equals(protocol)) {
                return true;
            }
        }
        return false;
    }

    /** The connections to this node that subscribe to {@code key}, each with the MD5 it holds as far as known. */
    public List<ConfigListener> listeners(ConfigKey key) {
        List<ConfigListener> out = new ArrayList<>();
        for (WsPushSession s : List.copyOf(sessions.values())) {
            ConfigListener l = s.listener(key);
            if (l != null) {
                out.add(l);
            }
        }
        return out;
    }

    /**
     * Records, for the delivery report, that the client at {@code clientIp} read {@code key} over
     * HTTP and was served {@code md5}: on each of its push connections that subscribe to the key.
     * Costs one map lookup for a client with no push connection.
     */
    public void pulled(ConfigKey key, String clientIp, String md5) {
        java.util.Set<WsPushSession> from = clientIp == null ? null : byAddress.get(clientIp);
        if (from != null) {
            from.forEach(s -> s.pulled(key, md5));
        }
    }

    /** Every key the connections from {@code clientIp} subscribe to. */
    public List<ConfigListener> listenersAt(String clientIp) {
        List<ConfigListener> out = new ArrayList<>();
        for (WsPushSession s : List.copyOf(sessions.values())) {
            if (clientIp.equals(s.clientAddress())) {
                out.addAll(s.listeners());
            }
        }
        return out;
    }

    private void configure(WsConfig ws) {
        ws.onConnect(ctx -> {
            ctx.session.setMaxTextMessageSize(2L * MAX_MESSAGE_CHARS);
            ctx.session.setIdleTimeout(IDLE_TIMEOUT);
            ctx.enableAutomaticPings(PING_SECONDS, TimeUnit.SECONDS, null);
            WsPushSession session = new WsPushSession(ctx);
            sessions.put(ctx.sessionId(), session);
            String address = session.clientAddress();
            if (address != null) {
                byAddress.compute(address, (a, set) -> {
                    java.util.Set<WsPushSession> s = set == null ? ConcurrentHashMap.newKeySet() : set;
                    s.add(session);
                    return s;
                });
            }
        });
        ws.onMessage(this::onMessage);
        ws.onBinaryMessage(ctx -> reject(ctx, "binary messages are not accepted; send JSON text"));
        ws.onClose(ctx -> forget(ctx));
        ws.onError(ctx -> {
            LOG.debug("push connection {} failed", ctx.sessionId(), ctx.error());
            forget(ctx);
        });
    }

    private void forget(WsContext ctx) {
        WsPushSession s = sessions.remove(ctx.sessionId());
        String address = s == null ? null : s.clientAddress();
        if (address != null) {
            byAddress.computeIfPresent(address, (a, set) -> {
                set.remove(s);
                return set.isEmpty() ? null : set;
            });
        }
        if (s != null) {
            ctx.disableAutomaticPings();
            hub.remove(s);
            services.forget(s);
        }
    }

    private void onMessage(WsMessageContext ctx) {
        WsPushSession session = sessions.get(ctx.sessionId());
        if (session == null) {
            return;
        }
        String text = ctx.message();
        if (text.length() > MAX_MESSAGE_CHARS) {
            reject(ctx, "message of " + text.length() + " characters exceeds " + MAX_MESSAGE_CHARS);
            return;
        }
        JsonNode msg;
        try {
            msg = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            reject(ctx, "not JSON: " + e.getOriginalMessage());
            return;
        }
        if (msg == null || !msg.isObject()) {
            session.error("a message is a JSON object with a \"type\"");
            return;
        }
        String type = msg.path("type").asText("");
        try {
            switch (type) {
                case "subscribe" -> subscribe(ctx, session, msg);
                case "unsubscribe" -> unsubscribe(ctx, session, msg);
                case "subscribe-services" -> subscribeServices(ctx, session, msg);
                case "unsubscribe-services" -> unsubscribeServices(ctx, session, msg);
                case "ping" -> session.sendJson(Map.of("type", "pong"));
                default ->
                    session.error("type: unknown message type '" + type
                            + "' (expected subscribe, unsubscribe, subscribe-services, unsubscribe-services or ping)");
            }
        } catch (InvalidRequestException | io.lodestar.error.ForbiddenException e) {
            session.error(e.getMessage());
        }
    }

    private void subscribe(WsContext ctx, WsPushSession session, JsonNode msg) {
        List<PushHub.Subscription> subs = new ArrayList<>();
        for (JsonNode k : keys(ctx, msg)) {
            if (k == null) {
                return;
            }
            JsonNode md5 = k.get("md5");
            if (md5 != null && !md5.isNull() && !md5.isTextual()) {
                throw new InvalidRequestException("md5", "must be a string");
            }
            subs.add(new PushHub.Subscription(key(k), md5 == null || md5.isNull() ? null : md5.asText()));
        }
        // a subscriber hears only keys it may read: one it may not refuses the whole message
        String caller = ctx.attribute(JavalinExchange.CALLER);
        subs.forEach(sub -> reads.check(caller, sub.key()));
        Long since = null;
        JsonNode sinceNode = msg.get("sinceRevision");
        if (sinceNode != null && !sinceNode.isNull()) {
            if (!sinceNode.canConvertToExactIntegral() || !sinceNode.canConvertToLong() || sinceNode.asLong() < 0) {
                throw new InvalidRequestException("sinceRevision", "must be a non-negative integer, not " + sinceNode);
            }
            since = sinceNode.asLong();
        }
        if (!session.addKeys(subs, MAX_KEYS)) {
            reject(ctx, "more than " + MAX_KEYS + " keys subscribed on one connection");
            return;
        }
        hub.subscribe(session, subs, since);
    }

    private void unsubscribe(WsContext ctx, WsPushSession session, JsonNode msg) {
        List<ConfigKey> keys = new ArrayList<>();
        for (JsonNode k : keys(ctx, msg)) {
            if (k == null) {
                return;
            }
            keys.add(key(k));
        }
        session.removeKeys(keys);
        hub.unsubscribe(session, keys);
        session.sendJson(Map.of("type", "unsubscribed", "count", keys.size()));
    }

    private void subscribeServices(WsContext ctx, WsPushSession session, JsonNode msg) {
        List<ServiceKey> keys = serviceKeys(ctx, msg);
        if (keys == null) {
            return;
        }
        // as for configs: one service the caller may not read refuses the whole message
        String caller = ctx.attribute(JavalinExchange.CALLER);
        keys.forEach(k -> serviceReads.check(caller, k));
        if (!services.subscribe(session, keys, MAX_KEYS)) {
            reject(ctx, "more than " + MAX_KEYS + " services subscribed on one connection");
            return;
        }
        session.sendJson(Map.of("type", "services-subscribed", "count", keys.size()));
    }

    private void unsubscribeServices(WsContext ctx, WsPushSession session, JsonNode msg) {
        List<ServiceKey> keys = serviceKeys(ctx, msg);
        if (keys == null) {
            return;
        }
        services.unsubscribe(session, keys);
        session.sendJson(Map.of("type", "services-unsubscribed", "count", keys.size()));
    }

    /** The message's services, named as the HTTP API names them; null when the connection was closed for it. */
    private List<ServiceKey> serviceKeys(WsContext ctx, JsonNode msg) {
        JsonNode list = msg.get("services");
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new InvalidRequestException(
                    "services", "must be a non-empty array of {namespaceId, groupName, serviceName}");
        }
        if (list.size() > MAX_KEYS) {
            reject(ctx, list.size() + " services in one message; at most " + MAX_KEYS);
            return null;
        }
        List<ServiceKey> out = new ArrayList<>();
        for (JsonNode k : list) {
            if (!k.isObject()) {
                throw new InvalidRequestException(
                        "services", "each is an object {namespaceId, groupName, serviceName}");
            }
            out.add(Names.service(name -> text(k, name)));
        }
        return out;
    }

    /** The message's key objects; a list holding one null when the connection was closed for it. */
    private List<JsonNode> keys(WsContext ctx, JsonNode msg) {
        JsonNode keys = msg.get("keys");
        if (keys == null || !keys.isArray() || keys.isEmpty()) {
            throw new InvalidRequestException("keys", "must be a non-empty array of {dataId, group, tenant}");
        }
        if (keys.size() > MAX_KEYS) {
            reject(ctx, keys.size() + " keys in one message; at most " + MAX_KEYS);
            return java.util.Collections.singletonList(null);
        }
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode k : keys) {
            if (!k.isObject()) {
                throw new InvalidRequestException("keys", "each key is an object {dataId, group, tenant}");
            }
            out.add(k);
        }
        return out;
    }

    /** A key as every protocol names one ({@link Names}): its namespace, group and dataId. */
    private static ConfigKey key(JsonNode k) {
        return Names.config(name -> text(k, name));
    }

    private static String text(JsonNode k, String field) {
        JsonNode v = k.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new InvalidRequestException(field, "must be a string");
        }
        return v.asText();
    }

    private void reject(WsContext ctx, String why) {
        LOG.debug("closing push connection {}: {}", ctx.sessionId(), why);
        forget(ctx);
        ctx.closeSession(POLICY_VIOLATION, why.length() > 120 ? why.substring(0, 120) : why);
    }
}
