package io.lodestar.api.server;

import io.javalin.Javalin;
import io.lodestar.api.http.HttpApi;
import io.lodestar.api.http.HttpStackWarmup;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ConfigService;
import io.lodestar.config.history.HistoryRetention;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.push.ChangeLogRetention;
import io.lodestar.config.push.PushHub;
import io.lodestar.api.push.PushRoutes;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.raft.RaftKvStore;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One Lodestar node: the store, the domain services over it, and the HTTP API in front. */
public final class LodestarServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LodestarServer.class);

    private final RaftKvStore store;
    private final Javalin http;
    private final ScheduledExecutorService watcher;
    private final LongPollRegistry listeners;
    private volatile HistoryRetention retention; // set once started, below
    private volatile ChangeLogRetention changeLogRetention; // likewise
    private final PushHub push;

    private LodestarServer(RaftKvStore store, Javalin http, ScheduledExecutorService watcher,
                           LongPollRegistry listeners, PushHub push) {
        this.listeners = listeners;
        this.push = push;
        this.store = store;
        this.http = http;
        this.watcher = watcher;
    }

    public static LodestarServer start(ServerSettings s) {
        HttpStackWarmup.startInBackground();
        HeapReturn.enable();
        byte[] secret = s.clusterSecret() != null ? s.clusterSecret() : InstallSecret.loadOrCreate(s.dataDir());
        KvStoreConfig config = KvStoreConfig.of(s.host(), s.raftPort(), s.peers(), s.dataDir(), secret,
                        ConfigKeyspaces.ALL)
                .withHttpAddress(s.host() + ":" + s.httpPort())
                .withSnapshotIntervalSecs(s.snapshotIntervalSecs());
        RaftKvStore store = RaftKvStore.start(config);
        ConfigService configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
        LongPollRegistry listeners = new LongPollRegistry(store, configs);
        PushHub push = new PushHub(store, configs);
        Javalin http;
        try {
            http = HttpApi.create(store, configs, listeners, s.host(), s.httpPort());
            PushRoutes.install(http, push);
            http.start();
        } catch (RuntimeException e) {
            push.close();
            listeners.close();
            store.close();
            throw new IllegalStateException("cannot serve HTTP on " + s.host() + ":" + s.httpPort() + ": " + e.getMessage(), e);
        }
        LOG.info("Lodestar started in {} ms: HTTP http://{}:{}/nacos, Raft {}:{}, data dir {}, {}",
                ManagementFactory.getRuntimeMXBean().getUptime(), s.host(), s.httpPort(),
                s.host(), s.raftPort(), s.dataDir().toAbsolutePath().normalize(),
                s.peers().isEmpty() ? "standalone" : "cluster " + s.peers());
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "role-watcher");
            t.setDaemon(true);
            return t;
        });
        LodestarServer server = new LodestarServer(store, http, watcher, listeners, push);
        watcher.scheduleWithFixedDelay(server::logRoleChanges, 100, 250, TimeUnit.MILLISECONDS);
        server.retention = new HistoryRetention(store, HistoryRetention.Settings.defaults(), java.time.Clock.systemUTC())
                .start(); // trims history on the leader only
        server.changeLogRetention = new ChangeLogRetention(store, ChangeLogRetention.Settings.defaults()).start();
        return server;
    }

    private String lastRole = "";

    /** Logs each change of this node's role and readiness, so an operator sees it without polling. */
    private void logRoleChanges() {
        try {
            var view = store.cluster();
            Readiness r = store.readiness();
            String role = view.members().stream().filter(m -> m.address().equals(view.self()))
                    .map(m -> m.state().name()).findFirst().orElse("UNKNOWN");
            String line = "role " + role + ", leader " + view.leader() + ", term " + view.term()
                    + (r.ready() ? ", ready" : ", not ready: " + r.reason());
            if (!line.equals(lastRole)) {
                lastRole = line;
                LOG.info("node {}: {}", view.self(), line);
            }
        } catch (RuntimeException e) {
            LOG.debug("role check failed", e);
        }
    }

    /** Stops taking requests, hands leadership over if leading, then closes the store. */
    @Override
    public void close() {
        watcher.shutdownNow();
        listeners.close(); // answers held polls first, so their clients re-poll elsewhere
        push.close(); // closes push connections with 1001, so their clients reconnect
        http.stop();
        if (retention != null) {
            retention.close();
        }
        if (changeLogRetention != null) {
            changeLogRetention.close();
        }
        store.close();
    }
}
