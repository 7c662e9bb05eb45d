package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.config.BetaConfig;
import io.lodestar.config.BetaIps;
import io.lodestar.config.Config;
import io.lodestar.config.ConfigConflictException;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ConfigService;
import io.lodestar.config.PublishRequest;
import io.lodestar.config.listen.ListeningConfigs;
import io.lodestar.config.listen.ListeningEntry;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.push.ConfigChangeLog;
import io.lodestar.config.push.PushHub;
import io.lodestar.config.push.PushSession;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.feed.ChangeEvent;
import io.lodestar.kv.feed.ChangeListener;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The config requests of nacos-client 2.x/3.x: query, publish (with compare-and-publish and gray
 * release), remove and batch listen, and the {@code ConfigChangeNotifyRequest} pushed to a
 * listening connection when a key it listens to changes on this node's change feed (the client
 * then queries). Failures are answered in each request's own response type, as Nacos answers them:
 * a missing config is {@code ConfigQueryResponse} with error code 300, a lost compare-and-publish
 * {@code ConfigPublishResponse} with 500. Which content a client is served (a gray release or the
 * stable config) is decided by its socket address, as over HTTP.
 */
final class ConfigRequests implements AutoCloseable {
    /** Nacos's error code for a config that does not exist (the client clears its snapshot on it). */
    static final int CONFIG_NOT_FOUND = 300;

    static final int CAS_FAILED = 500;
    private static final int FEED_CAPACITY = 4_096;

    private final ConfigService configs;
    private final LongPollRegistry listeners;
    private final PushHub push;
    private final Map<Connection, Notifier> notifiers = new ConcurrentHashMap<>();
    /** Who listens to each key here, for the gray-release changes, which the change log does not carry. */
    private final Map<ConfigKey, Set<Notifier>> listening = new ConcurrentHashMap<>();

    private final AutoCloseable betaFeed;

    ConfigRequests(KvStore store, ConfigService configs, LongPollRegistry listeners, PushHub push) {
        this.configs = configs;
        this.listeners = listeners;
        this.push = push;
        this.betaFeed = store.subscribe(new BetaChanges(), FEED_CAPACITY);
    }

    void register(RequestDispatcher dispatcher, Connections connections) {
        dispatcher
                .add("ConfigQueryRequest", "ConfigQueryResponse", this::query)
                .add("ConfigPublishRequest", "ConfigPublishResponse", this::publish)
                .add("ConfigRemoveRequest", "ConfigRemoveResponse", this::remove)
                .add("ConfigBatchListenRequest", "ConfigChangeBatchListenResponse", this::listen);
        connections.onClose(c -> {
            Notifier n = notifiers.remove(c);
            if (n != null) {
                push.remove(n);
                unlisten(n, List.copyOf(n.keys.keySet()));
            }
        });
    }

    private void unlisten(Notifier n, List<ConfigKey> keys) {
        for (ConfigKey k : keys) {
            n.keys.remove(k);
            listening.computeIfPresent(k, (key, set) -> {
                set.remove(n);
                return set.isEmpty() ? null : set;
            });
        }
    }

    @Override
    public void close() {
        try {
            betaFeed.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot unsubscribe from the change feed", e);
        }
    }

    private static ConfigKey key(JsonNode node) {
        return new ConfigKey(
                GrpcRequest.text(node, "tenant"), GrpcRequest.text(node, "group"), GrpcRequest.text(node, "dataId"));
    }

    private static void refuseTag(GrpcRequest r) {
        String tag = r.text("tag");
        if (tag != null && !tag.isEmpty()) {
            throw new InvalidRequestException("tag", "tagged configs (the v2 gray form) are not supported");
        }
    }

    private CompletableFuture<Reply> query(GrpcRequest r) {
        refuseTag(r);
        ConfigKey key = key(r.body());
        // beta first, as the HTTP read does: a promote between the reads shows its new content either way
        BetaConfig beta = configs.getBeta(key);
        Config config = configs.get(key);
        Reply reply;
        if (beta != null && beta.servesTo(r.remoteAddr())) {
            reply = Reply.ok("ConfigQueryResponse")
                    .with("content", beta.content())
                    .with("md5", beta.md5())
                    .with("contentType", config == null || config.type() == null ? "text" : config.type())
                    .withFlag("beta", true);
        } else if (config == null) {
            reply = Reply.fail("ConfigQueryResponse", CONFIG_NOT_FOUND, "config data not exist");
        } else {
            reply = Reply.ok("ConfigQueryResponse")
                    .with("content", config.content())
                    .with("md5", config.md5())
                    .with("contentType", config.type() == null ? "text" : config.type())
                    .withFlag("beta", false);
            reply.body().put("lastModified", config.modifyTime());
        }
        reply.body().put("encryptedDataKey", "");
        return CompletableFuture.completedFuture(reply);
    }

    private CompletableFuture<Reply> publish(GrpcRequest r) {
        ConfigKey key = key(r.body());
        ObjectNode addition = r.object("additionMap");
        String tag = addition == null ? null : GrpcRequest.text(addition, "tag");
        if (tag != null && !tag.isEmpty()) {
            throw new InvalidRequestException("tag", "tagged configs (the v2 gray form) are not supported");
        }
        PublishRequest request = new PublishRequest(
                key,
                r.text("content"),
                addition == null ? null : GrpcRequest.text(addition, "type"),
                addition == null ? null : GrpcRequest.text(addition, "appName"),
                addition == null ? null : GrpcRequest.text(addition, "desc"),
                addition == null ? null : GrpcRequest.text(addition, "config_tags"),
                r.remoteAddr(),
                r.caller()); // the author is who logged in, never the request's src_user
        String casMd5 = r.text("casMd5");
        boolean cas = casMd5 != null && !casMd5.isEmpty();
        String betaIps = addition == null ? null : GrpcRequest.text(addition, BetaIps.FIELD);
        CompletableFuture<Long> done;
        if (betaIps != null && !betaIps.isEmpty()) {
            if (cas) {
                throw new InvalidRequestException("casMd5", "compare-and-publish is not supported for a beta");
            }
            done = configs.publishBeta(request, betaIps);
        } else {
            done = configs.publish(request, cas ? casMd5 : null);
        }
        return done.handle((revision, e) -> {
            if (e == null) {
                return Reply.ok("ConfigPublishResponse");
            }
            Throwable cause = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
            if (cause instanceof ConfigConflictException) { // Nacos's words for a lost compare
                return Reply.fail(
                        "ConfigPublishResponse", CAS_FAILED, "Cas publish fail, server md5 may have changed.");
            }
            throw e instanceof RuntimeException re ? re : new java.util.concurrent.CompletionException(e);
        });
    }

    private CompletableFuture<Reply> remove(GrpcRequest r) {
        refuseTag(r);
        return configs.delete(key(r.body()), r.remoteAddr(), r.caller())
                .thenApply(v -> Reply.ok("ConfigRemoveResponse"));
    }

    /**
     * Listens (or stops) to the given keys for this connection, and answers at once which of them
     * differ from what the client holds: registered first, then compared, so a change in between is
     * either answered or pushed.
     */
    private CompletableFuture<Reply> listen(GrpcRequest r) {
        boolean listen = r.bool("listen", true);
        JsonNode contexts = r.body().get("configListenContexts");
        if (contexts != null && !contexts.isNull() && !contexts.isArray()) {
            throw new InvalidRequestException(
                    "configListenContexts", "must be an array, not " + contexts.getNodeType());
        }
        List<ListeningEntry> entries = new ArrayList<>();
        // the namespace as the client names it ("" or "public" for the public one): it matches
        // answers and notices to its cache by that name
        Map<ConfigKey, String> spelled = new HashMap<>();
        if (contexts != null) {
            if (contexts.size() > ListeningConfigs.MAX_ENTRIES) {
                throw new InvalidRequestException(
                        "configListenContexts",
                        contexts.size() + " keys in one request; at most " + ListeningConfigs.MAX_ENTRIES);
            }
            for (JsonNode c : contexts) {
                if (!c.isObject()) {
                    throw new InvalidRequestException(
                            "configListenContexts", "each entry must be an object, not " + c.getNodeType());
                }
                String md5 = GrpcRequest.text(c, "md5");
                ConfigKey key = key(c);
                entries.add(new ListeningEntry(key, md5 == null ? "" : md5));
                String tenant = GrpcRequest.text(c, "tenant");
                spelled.put(key, tenant == null ? "" : tenant);
            }
        }
        Reply reply = Reply.ok("ConfigChangeBatchListenResponse");
        ArrayNode changed = reply.body().putArray("changedConfigs");
        Connection connection = r.connection();
        if (!listen) {
            Notifier n = notifiers.get(connection);
            if (n != null) {
                List<ConfigKey> keys = entries.stream().map(ListeningEntry::key).toList();
                push.unsubscribe(n, keys);
                unlisten(n, keys);
            }
            return CompletableFuture.completedFuture(reply);
        }
        if (entries.isEmpty()) {
            return CompletableFuture.completedFuture(reply);
        }
        Notifier n = notifiers.computeIfAbsent(connection, Notifier::new);
        if (connection.closed()) { // closed while we registered: forget it again
            notifiers.remove(connection);
            return CompletableFuture.completedFuture(reply);
        }
        for (ListeningEntry e : entries) {
            n.keys.put(e.key(), spelled.get(e.key()));
            listening
                    .computeIfAbsent(e.key(), k -> ConcurrentHashMap.newKeySet())
                    .add(n);
        }
        push.subscribe(
                n,
                entries.stream()
                        .map(e -> new PushHub.Subscription(e.key(), null))
                        .toList(),
                null);
        return listeners.poll(entries, r.remoteAddr(), 0, true).thenApply(keys -> {
            for (ConfigKey k : keys) {
                ObjectNode o = changed.addObject();
                o.put("group", k.group()).put("dataId", k.dataId()).put("tenant", spelled.get(k));
            }
            return reply;
        });
    }

    /**
     * A gray release started, changed, stopped or was promoted: tell every connection listening to
     * the key, since which of them it concerns depends on their addresses; the others find their md5
     * unchanged when they ask.
     */
    private final class BetaChanges implements ChangeListener {
        @Override
        public boolean hears(String keyspace) {
            return ConfigKeyspaces.BETA.equals(keyspace);
        }

        @Override
        public void onChange(ChangeEvent event) {
            ConfigKey key = ConfigKey.fromStoreKey(event.key());
            Set<Notifier> set = listening.get(key);
            if (set != null) {
                set.forEach(n -> n.notice(key));
            }
        }

        @Override
        public void onResync(long fromRevision) {
            // missed gray-release changes are found by the clients' full re-listen (every 3 minutes)
        }
    }

    /** Tells one connection's client that a key it listens to changed: it then asks for the content. */
    private static final class Notifier implements PushSession {
        private final Connection connection;
        /** The keys listened to, each with its namespace as the client names it. */
        final Map<ConfigKey, String> keys = new ConcurrentHashMap<>();

        Notifier(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void send(ConfigChangeLog.Change change) {
            notice(change.key());
        }

        void notice(ConfigKey key) {
            Reply notice = Reply.push("ConfigChangeNotifyRequest", "config", connection.nextPushId())
                    .with("dataId", key.dataId())
                    .with("group", key.group())
                    .with("tenant", keys.getOrDefault(key, key.tenant()));
            // no answer awaited: the stream delivers it while the connection lives, and the
            // client's full re-listen (every 3 minutes, and on reconnect) covers the rest
            connection.send(notice);
        }

        @Override
        public void subscribed(long revision) {}

        @Override
        public void close(CloseReason reason) {
            // the hub dropped this listener (too slow, or stopping): the client's full re-listen
            // (every 3 minutes, and on every reconnect) finds what it missed
            if (reason == CloseReason.TOO_SLOW) {
                connection.close("too slow to take config change notices");
            }
        }
    }
}
