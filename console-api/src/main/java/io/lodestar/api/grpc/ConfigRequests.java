package io.lodestar.api.grpc;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.request.ConfigOp;
import io.lodestar.config.ConfigKey;
import io.lodestar.config.ServedConfig;
import io.lodestar.config.changelog.ConfigChangeLog;
import io.lodestar.config.listen.BetaChangeNotices;
import io.lodestar.config.listen.ConfigListener;
import io.lodestar.config.listen.ListeningEntry;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.listen.Notice;
import io.lodestar.config.listen.Pull;
import io.lodestar.config.push.PushHub;
import io.lodestar.config.push.PushSession;
import io.lodestar.config.service.ConfigService;
import io.lodestar.error.LimitExceededException;
import io.lodestar.error.NotFoundException;
import io.lodestar.kv.KvStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The config requests of nacos-client 2.x/3.x: query, publish (with compare-and-publish and gray
 * release), remove and batch listen, and the {@code ConfigChangeNotifyRequest} pushed to a
 * listening connection when a key it listens to changes (the push hub's config changes and
 * config-service's gray-release notices; the client then queries). Failures are answered in each request's own response type, with the codes
 * Nacos answers them with ({@code ErrorMapping}: a missing config is 300, a lost
 * compare-and-publish 500). Which content a client is served (a gray release or the
 * stable config) is decided by its socket address, as over HTTP.
 */
final class ConfigRequests implements AutoCloseable {
    /** How long a client has to answer a change notice before the delivery report calls it unanswered. */
    static final long NOTICE_ACK_MS = 3_000;

    private final ConfigService configs;
    private final LongPollRegistry listeners;
    private final Metrics metrics;
    /** The most keys one connection listens to: each is held, and notified, while it lives. */
    private final int maxListensPerConnection;

    private final PushHub push;
    private final Map<Connection, Notifier> notifiers = new ConcurrentHashMap<>();
    /** Gray-release changes, which the change log (and so the push hub) does not carry. */
    private final BetaChangeNotices betas;

    ConfigRequests(
            KvStore store,
            ConfigService configs,
            LongPollRegistry listeners,
            PushHub push,
            Metrics metrics,
            Limits limits) {
        this.metrics = metrics;
        this.maxListensPerConnection = limits.intValue(Limit.GRPC_LISTENS_PER_CONNECTION);
        this.configs = configs;
        this.listeners = listeners;
        this.push = push;
        this.betas = new BetaChangeNotices(store);
    }

    void register(RequestDispatcher dispatcher, Connections connections) {
        dispatcher
                .add("ConfigQueryRequest", "ConfigQueryResponse", GrpcParsers::configQuery, this::query)
                .add("ConfigPublishRequest", "ConfigPublishResponse", GrpcParsers::configPublish, this::publish)
                .add("ConfigRemoveRequest", "ConfigRemoveResponse", GrpcParsers::configRemove, this::remove)
                .add(
                        "ConfigBatchListenRequest",
                        "ConfigChangeBatchListenResponse",
                        GrpcParsers::configListen,
                        this::listen);
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
            n.md5s.remove(k);
            n.notices.remove(k);
            n.pulls.remove(k);
            betas.unlisten(k, n);
        }
    }

    @Override
    public void close() {
        betas.close();
    }

    /** The connections listening to {@code key} here, each named by its client's {@code ip:port}. */
    List<ConfigListener> listeners(ConfigKey key) {
        List<ConfigListener> out = new ArrayList<>();
        notifiers.forEach((connection, n) -> {
            String md5 = n.md5s.get(key);
            if (md5 != null) {
                out.add(new ConfigListener(key, address(connection), md5, n.notices.get(key), n.pulls.get(key)));
            }
        });
        return out;
    }

    /** Every key the connections from {@code clientIp} listen to here. */
    List<ConfigListener> listenersAt(String clientIp) {
        List<ConfigListener> out = new ArrayList<>();
        notifiers.forEach((connection, n) -> {
            if (connection.remoteIp().equals(clientIp)) {
                n.md5s.forEach((key, md5) -> out.add(
                        new ConfigListener(key, address(connection), md5, n.notices.get(key), n.pulls.get(key))));
            }
        });
        return out;
    }

    private static String address(Connection c) {
        return c.remoteIp().indexOf(':') >= 0
                ? "[" + c.remoteIp() + "]:" + c.remotePort()
                : c.remoteIp() + ":" + c.remotePort();
    }

    private CompletableFuture<Reply> query(ConfigOp.Read op, GrpcRequest.Call call) {
        ServedConfig served = configs.serve(op.key(), call.remoteAddr());
        if (served == null) {
            throw new NotFoundException("config", "config data not exist");
        }
        Notifier n = notifiers.get(call.connection());
        if (n != null && n.keys.containsKey(op.key())) {
            n.pulls.put(op.key(), new Pull(served.md5(), System.currentTimeMillis(), Pull.GRPC));
        }
        Reply reply = Reply.ok("ConfigQueryResponse")
                .with("content", served.content())
                .with("md5", served.md5())
                .with("contentType", served.type())
                .withFlag("beta", served.beta());
        if (!served.beta()) {
            reply.body().put("lastModified", served.lastModified());
        }
        reply.body().put("encryptedDataKey", "");
        return CompletableFuture.completedFuture(reply);
    }

    private CompletableFuture<Reply> publish(ConfigOp.Publish op, GrpcRequest.Call call) {
        return configs.publish(op.request(), op.casMd5(), op.betaIps())
                .thenApply(revision -> Reply.ok("ConfigPublishResponse"));
    }

    private CompletableFuture<Reply> remove(ConfigOp.Remove op, GrpcRequest.Call call) {
        return configs.delete(op.key(), call.remoteAddr(), call.caller())
                .thenApply(v -> Reply.ok("ConfigRemoveResponse"));
    }

    /**
     * Listens (or stops) to the given keys for this connection, and answers at once which of them
     * differ from what the client holds: registered first, then compared, so a change in between is
     * either answered or pushed.
     */
    private CompletableFuture<Reply> listen(GrpcParsers.BatchListen op, GrpcRequest.Call call) {
        List<ListeningEntry> entries = op.listen().entries();
        // the namespace as the client names it ("" or "public" for the public one): it matches
        // answers and notices to its cache by that name
        Map<ConfigKey, String> spelled = op.spelled();
        boolean listen = op.listen().listen();
        Reply reply = Reply.ok("ConfigChangeBatchListenResponse");
        ArrayNode changed = reply.body().putArray("changedConfigs");
        Connection connection = call.connection();
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
        synchronized (n) { // one batch at a time per connection, so two cannot both pass the count
            long added =
                    entries.stream().filter(e -> !n.keys.containsKey(e.key())).count();
            if (n.keys.size() + added > maxListensPerConnection) {
                metrics.limitRefused(Limit.GRPC_LISTENS_PER_CONNECTION);
                throw LimitExceededException.tooMany(
                        Limit.GRPC_LISTENS_PER_CONNECTION.key(),
                        maxListensPerConnection,
                        "this connection's listened configs (" + n.keys.size() + " held, " + added + " more asked)");
            }
            for (ListeningEntry e : entries) {
                n.keys.put(e.key(), spelled.get(e.key()));
                n.md5s.put(e.key(), e.md5());
                betas.listen(e.key(), n);
            }
        }
        push.subscribe(
                n,
                entries.stream()
                        .map(e -> new PushHub.Subscription(e.key(), null))
                        .toList(),
                null);
        for (ConfigKey k : listeners.differing(entries, call.remoteAddr())) {
            ObjectNode o = changed.addObject();
            o.put("group", k.group()).put("dataId", k.dataId()).put("tenant", spelled.get(k));
        }
        return CompletableFuture.completedFuture(reply);
    }

    /** Tells one connection's client that a key it listens to changed: it then asks for the content. */
    private static final class Notifier implements PushSession, BetaChangeNotices.Listener {
        private final Connection connection;
        /** The keys listened to, each with its namespace as the client names it. */
        final Map<ConfigKey, String> keys = new ConcurrentHashMap<>();
        /** The MD5 the client holds of each key, as its last listen said. */
        final Map<ConfigKey, String> md5s = new ConcurrentHashMap<>();
        /** The last change notice of each key listened to, and its answer: one each, gone with the key. */
        final Map<ConfigKey, Notice> notices = new ConcurrentHashMap<>();
        /** The last query of each key listened to this connection made. */
        final Map<ConfigKey, Pull> pulls = new ConcurrentHashMap<>();

        Notifier(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void send(ConfigChangeLog.Change change) {
            notice(change.key(), change.deleted() ? "" : change.md5());
        }

        @Override
        public void betaChanged(ConfigKey key) {
            notice(key, null);
        }

        void notice(ConfigKey key, String md5) {
            Reply notice = Reply.push("ConfigChangeNotifyRequest", "config", connection.nextPushId())
                    .with("dataId", key.dataId())
                    .with("group", key.group())
                    .with("tenant", keys.getOrDefault(key, key.tenant()));
            // nothing waits on the answer: the stream delivers it while the connection lives, and
            // the client's full re-listen (every 3 minutes, and on reconnect) covers the rest; the
            // answer is only recorded, for the delivery report
            Notice sent = new Notice(md5, System.currentTimeMillis(), Notice.GRPC, null, null);
            if (keys.containsKey(key)) { // not for a key unlistened meanwhile: the record goes with the key
                notices.put(key, sent);
            }
            var unused = connection.push(notice, NOTICE_ACK_MS).whenComplete((ok, e) -> {
                String why = e == null ? null : unanswered(e);
                // only if no later notice replaced it, and the key is still listened to
                notices.computeIfPresent(key, (k, now) -> now == sent ? sent.answered(why) : now);
            });
        }

        private static String unanswered(Throwable e) {
            Throwable cause = io.lodestar.error.Failures.cause(e);
            return cause instanceof java.util.concurrent.TimeoutException
                    ? "no answer within " + NOTICE_ACK_MS + " ms"
                    : String.valueOf(cause.getMessage());
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
