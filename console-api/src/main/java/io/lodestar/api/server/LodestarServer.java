package io.lodestar.api.server;

import io.javalin.Javalin;
import io.lodestar.api.http.HttpApi;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.ConfigService;
import io.lodestar.config.history.HistoryRetention;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.push.ChangeLogRetention;
import io.lodestar.config.push.PushHub;
import io.lodestar.api.push.PushRoutes;
import io.lodestar.api.udp.UdpPushSettings;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.api.v1.naming.NamingJson;
import io.lodestar.api.v1.naming.NamingParams;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.NamingService;
import io.lodestar.naming.dns.DnsServer;
import io.lodestar.naming.dns.DnsServerSettings;
import io.lodestar.naming.dns.RegistryDnsSource;
import io.lodestar.naming.health.PersistentHealthChecks;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One Lodestar node: the store, the domain services over it, and the HTTP API in front. */
public final class LodestarServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LodestarServer.class);
    /** How often freed C-heap memory goes back to the OS; a trim that finds little to return costs well under a millisecond. */
    private static final long NATIVE_TRIM_SECONDS = 5;

    private final RaftKvStore store;
    private final Javalin http;
    private final ScheduledExecutorService watcher;
    private final LongPollRegistry listeners;
    private volatile HistoryRetention retention; // set once started, below
    private volatile ChangeLogRetention changeLogRetention; // likewise
    private final PushHub push;
    private final Naming naming;

    /**
     * The registry with what serves it outside HTTP: UDP push to 1.x clients (null when no UDP port
     * could be bound), the DNS interface (null when off) and the probes of persistent instances.
     */
    private record Naming(NamingService service, UdpPusher udp, AutoCloseable subscription,
                          RegistryDnsSource dnsSource, DnsServer dns, PersistentHealthChecks health) {
        static Naming start(RaftKvStore store, ServerSettings s) {
            NamingService naming = new NamingService(store);
            UdpPusher udp;
            try {
                udp = UdpPusher.start(s.host(), (service, clusters) -> NamingJson.listJson(
                        naming.list(service, NamingParams.clusterSet(clusters), false), clusters), UdpPushSettings.DEFAULT);
            } catch (IOException | RuntimeException e) {
                LOG.warn("UDP push to 1.x clients is off: cannot bind a UDP port on {}: {}; clients will poll", s.host(),
                        e.toString());
                udp = null;
            }
            AutoCloseable subscription = udp == null ? () -> { } : naming.subscribe(udp::serviceChanged);
            RegistryDnsSource dnsSource = null;
            DnsServer dns = null;
            if (s.dnsPort() >= 0) {
                dnsSource = new RegistryDnsSource(naming);
                try {
                    dns = new DnsServer(DnsServerSettings.defaults().withAddress(s.host(), s.dnsPort()), dnsSource).start();
                } catch (RuntimeException e) {
                    closeQuietly(dnsSource);
                    closeQuietly(subscription);
                    if (udp != null) {
                        udp.close();
                    }
                    naming.close();
                    throw new IllegalStateException("cannot serve DNS on " + s.host() + ":" + s.dnsPort()
                            + " (UDP and TCP): " + e.getMessage() + "; choose another --dns-port, or -1 for none", e);
                }
            }
            PersistentHealthChecks health = PersistentHealthChecks.start(naming, () -> leads(store), s.probeScope());
            return new Naming(naming, udp, subscription, dnsSource, dns, health);
        }

        private static boolean leads(RaftKvStore store) {
            var view = store.cluster();
            return view.self().equals(view.leader());
        }

        /** Probes, DNS and push first, then the registry; the store stays open. */
        void close() {
            health.close();
            if (dns != null) {
                dns.close();
            }
            closeQuietly(dnsSource);
            closeQuietly(subscription);
            if (udp != null) {
                udp.close();
            }
            service.close();
        }

        private static void closeQuietly(AutoCloseable c) {
            if (c == null) {
                return;
            }
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed", c, e);
            }
        }
    }

    private LodestarServer(RaftKvStore store, Javalin http, ScheduledExecutorService watcher,
                           LongPollRegistry listeners, PushHub push, Naming naming) {
        this.listeners = listeners;
        this.push = push;
        this.naming = naming;
        this.store = store;
        this.http = http;
        this.watcher = watcher;
    }

    public static LodestarServer start(ServerSettings s) {
        HeapReturn.enable(); // first: start-up's own collections would shrink the heap below its floor
        byte[] secret = s.clusterSecret() != null ? s.clusterSecret() : InstallSecret.loadOrCreate(s.dataDir());
        Set<String> keyspaces = new HashSet<>(ConfigKeyspaces.ALL);
        keyspaces.addAll(NamingKeyspaces.ALL);
        KvStoreConfig config = KvStoreConfig.of(s.host(), s.raftPort(), s.peers(), s.dataDir(), secret,
                        Set.copyOf(keyspaces))
                .withHttpAddress(s.host() + ":" + s.httpPort())
                .withSnapshotIntervalSecs(s.snapshotIntervalSecs())
                .withSnapshotThresholds(s.snapshotEntries(), s.snapshotBytes())
                .withDiskReserveBytes(s.diskReserveBytes());
        RaftKvStore store = RaftKvStore.start(config);
        ConfigService configs = new ConfigService(store, ConfigService.DEFAULT_MAX_CONTENT_BYTES);
        LongPollRegistry listeners = new LongPollRegistry(store, configs);
        PushHub push = new PushHub(store, configs);
        Naming naming = Naming.start(store, s);
        Javalin http;
        try {
            http = HttpApi.create(store, configs, listeners, naming.service(), naming.health(), naming.udp(), s.host(),
                    s.httpPort());
            PushRoutes.install(http, push);
            http.start();
        } catch (RuntimeException e) {
            naming.close();
            push.close();
            listeners.close();
            store.close();
            throw new IllegalStateException("cannot serve HTTP on " + s.host() + ":" + s.httpPort() + ": " + e.getMessage(), e);
        }
        LOG.info("Lodestar started in {} ms: HTTP http://{}:{}/nacos, Raft {}:{}, DNS {}, data dir {}, {}, "
                        + "health probes to --probe-allow {}",
                ManagementFactory.getRuntimeMXBean().getUptime(), s.host(), s.httpPort(), s.host(), s.raftPort(),
                naming.dns() == null ? "off" : s.host() + ":" + naming.dns().port() + " (zone lodestar.)",
                s.dataDir().toAbsolutePath().normalize(), s.peers().isEmpty() ? "standalone" : "cluster " + s.peers(),
                s.probeScope());
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "server-watcher");
            t.setDaemon(true);
            return t;
        });
        LodestarServer server = new LodestarServer(store, http, watcher, listeners, push, naming);
        watcher.scheduleWithFixedDelay(server::logRoleChanges, 100, 250, TimeUnit.MILLISECONDS);
        server.retention = new HistoryRetention(store, HistoryRetention.Settings.defaults(), java.time.Clock.systemUTC())
                .start(); // trims history on the leader only
        server.changeLogRetention = new ChangeLogRetention(store, ChangeLogRetention.Settings.defaults()).start();
        HeapReturn.settle(); // start-up's garbage is collectable now
        NativeHeapTrim.ifAvailable().ifPresent(trim ->
                watcher.scheduleWithFixedDelay(trim::trim, NATIVE_TRIM_SECONDS, NATIVE_TRIM_SECONDS, TimeUnit.SECONDS));
        return server;
    }

    private RoleLine lastRole;

    private record RoleLine(String role, String leader, long term, boolean ready, String reason) {
        @Override
        public String toString() {
            return "role " + role + ", leader " + leader + ", term " + term + (ready ? ", ready" : ", not ready: " + reason);
        }
    }

    /**
     * Logs each change of this node's role and readiness, so an operator sees it without polling.
     * Four times a second, so from state held in memory only: no store read, no member list.
     */
    private void logRoleChanges() {
        try {
            var status = store.status();
            Readiness r = store.readiness();
            String self = store.self();
            RoleLine line = new RoleLine(status.state(), "LEADER".equals(status.state()) ? self : status.leader(),
                    status.term(), r.ready(), r.ready() ? null : r.reason());
            if (!line.equals(lastRole)) {
                lastRole = line;
                LOG.info("node {}: {}", self, line);
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
        naming.close();
        if (retention != null) {
            retention.close();
        }
        if (changeLogRetention != null) {
            changeLogRetention.close();
        }
        store.close();
    }
}
