package io.lodestar.api.server;

import io.javalin.Javalin;
import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.auth.Auth;
import io.lodestar.api.auth.AuthKeyspaces;
import io.lodestar.api.balance.ConnectionBalancer;
import io.lodestar.api.cluster.NodeReadiness;
import io.lodestar.api.grpc.GrpcApi;
import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.LimitRefusals;
import io.lodestar.api.metrics.Metrics;
import io.lodestar.api.metrics.ScrapeToken;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.request.RequestChecks;
import io.lodestar.api.udp.UdpPushSettings;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.config.ConfigKeyspaces;
import io.lodestar.config.changelog.ChangeLogRetention;
import io.lodestar.config.history.HistoryRetention;
import io.lodestar.config.listen.LongPollRegistry;
import io.lodestar.config.namespace.NamespaceService;
import io.lodestar.config.push.PushHub;
import io.lodestar.config.service.ConfigSearch;
import io.lodestar.config.service.ConfigService;
import io.lodestar.config.service.PublicAliasMigration;
import io.lodestar.config.transfer.ArchiveLimits;
import io.lodestar.config.transfer.ConfigTransfer;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.kv.RaftPortSettings;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.kv.count.CountRules;
import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.dns.DnsServer;
import io.lodestar.naming.dns.DnsServerSettings;
import io.lodestar.naming.dns.RegistryDnsSource;
import io.lodestar.naming.health.PersistentHealthChecks;
import io.lodestar.naming.service.NamingOptions;
import io.lodestar.naming.service.NamingService;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Lodestar node: the store, the domain services over it, and the HTTP API in front. {@link
 * #start} is the one place where the parts of a node are built and wired.
 */
public final class LodestarServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LodestarServer.class);

    private final RaftKvStore store;
    private final LongPollRegistry listeners;
    private final PushHub push;
    private final Naming naming;
    private final Javalin http;
    private final GrpcApi grpc; // null when off
    private final ConnectionBalancer balance; // null when gRPC is off
    /** Background jobs stopped with the server: retention, the public alias migration, auth set-up. */
    private final List<AutoCloseable> backgroundJobs;

    private final ScheduledExecutorService watcher;
    private RoleLine lastRole; // the watcher thread's own

    /**
     * The registry with what serves it outside HTTP: UDP push to 1.x clients (null when no UDP port
     * could be bound), the DNS interface (null when off) and the probes of persistent instances.
     */
    private record Naming(
            NamingService service,
            UdpPusher udp,
            AutoCloseable subscription,
            RegistryDnsSource dnsSource,
            DnsServer dns,
            PersistentHealthChecks health) {
        static Naming start(RaftKvStore store, ServerSettings s, LimitRefusals refusals) {
            NamingQuotas quotas = new NamingQuotas(
                    s.limits().quota(Limit.QUOTA_SERVICES_PER_NAMESPACE),
                    s.limits().quota(Limit.QUOTA_INSTANCES_PER_SERVICE),
                    s.limits().quota(Limit.QUOTA_EPHEMERAL_INSTANCES_PER_SERVICE),
                    s.limits().quota(Limit.QUOTA_EPHEMERAL_INSTANCES),
                    name -> refusals.refused(Limit.byKey(name)));
            NamingService naming =
                    new NamingService(store, NamingOptions.DEFAULT.withQuotas(quotas), java.time.Clock.systemUTC());
            UdpPusher udp;
            try {
                udp = UdpPusher.start(
                        s.host(),
                        (service, clusters) -> NamingJson.listJson(
                                naming.list(service, NamingFields.clusterSet(clusters), false), clusters),
                        UdpPushSettings.DEFAULT.withCaps(
                                s.limits().intValue(Limit.UDP_SUBSCRIBERS),
                                s.limits().intValue(Limit.UDP_SUBSCRIBERS_PER_ADDRESS)),
                        refusals::refused);
            } catch (IOException | RuntimeException e) {
                LOG.warn(
                        "UDP push to 1.x clients is off: cannot bind a UDP port on {}: {}; clients will poll",
                        s.host(),
                        e.toString());
                udp = null;
            }
            AutoCloseable subscription = udp == null ? () -> {} : naming.subscribe(udp::serviceChanged);
            RegistryDnsSource dnsSource = null;
            DnsServer dns = null;
            if (s.dnsPort() >= 0) {
                dnsSource = new RegistryDnsSource(naming, s.dnsNamespaces());
                try {
                    DnsServerSettings dnsSettings = DnsServerSettings.defaults()
                            .withAddress(s.host(), s.dnsPort())
                            .withUdpAnswersPerSecond(s.limits().intValue(Limit.DNS_UDP_ANSWERS_PER_SECOND));
                    dns = new DnsServer(
                                    dnsSettings, dnsSource, () -> refusals.refused(Limit.DNS_UDP_ANSWERS_PER_SECOND))
                            .start();
                } catch (RuntimeException e) {
                    closeQuietly(dnsSource);
                    closeQuietly(subscription);
                    if (udp != null) {
                        udp.close();
                    }
                    naming.close();
                    throw new IllegalStateException(
                            "cannot serve DNS on " + s.host() + ":" + s.dnsPort() + " (UDP and TCP): " + e.getMessage()
                                    + "; choose another --dns-port, or -1 for none",
                            e);
                }
                LOG.info(
                        "DNS answers for the services of namespaces: {} (--dns-namespaces; no token asked)",
                        s.dnsNamespaces());
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

    private LodestarServer(
            RaftKvStore store,
            LongPollRegistry listeners,
            PushHub push,
            Naming naming,
            Javalin http,
            GrpcApi grpc,
            ConnectionBalancer balance,
            List<AutoCloseable> backgroundJobs) {
        this.store = store;
        this.listeners = listeners;
        this.push = push;
        this.naming = naming;
        this.http = http;
        this.grpc = grpc;
        this.balance = balance;
        this.backgroundJobs = backgroundJobs;
        this.watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "server-watcher");
            t.setDaemon(true);
            return t;
        });
        watcher.scheduleWithFixedDelay(this::logRoleChanges, 100, 250, TimeUnit.MILLISECONDS);
    }

    /** Every keyspace of the store: the domains' own, declared in code. */
    public static final Set<String> KEYSPACES = keyspaces();

    /** The keyspaces whose keys the store counts, for the quotas. */
    public static final CountRules COUNTED = ConfigKeyspaces.COUNTED.and(NamingKeyspaces.COUNTED);

    private static Set<String> keyspaces() {
        Set<String> all = new HashSet<>(ConfigKeyspaces.ALL);
        all.addAll(AuthKeyspaces.ALL);
        all.addAll(NamingKeyspaces.ALL);
        return Set.copyOf(all);
    }

    public static LodestarServer start(ServerSettings s) {
        return start(s, new RequestChecks());
    }

    /** As {@link #start(ServerSettings)}, every request passing {@code checks} first. */
    static LodestarServer start(ServerSettings s, RequestChecks checks) {
        // before anything creates a file: the umask it sets is what every later file is born with
        DataDirPermissions.secure(s.dataDir());
        byte[] secret = s.clusterSecret() != null ? s.clusterSecret() : InstallSecret.loadOrCreate(s.dataDir());
        LimitRefusals refusals = new LimitRefusals();
        KvStoreConfig config = KvStoreConfig.of(s.host(), s.raftPort(), s.peers(), s.dataDir(), secret, KEYSPACES)
                .withHttpAddress(s.host() + ":" + s.httpPort())
                .withSnapshotIntervalSecs(s.snapshotIntervalSecs())
                .withSnapshotThresholds(s.snapshotEntries(), s.snapshotBytes())
                .withDiskReserveBytes(s.diskReserveBytes())
                .withRaftPortSettings(new RaftPortSettings(
                        s.limits().intValue(Limit.RAFT_UNPROVEN_CONNECTIONS),
                        s.limits().intValue(Limit.RAFT_UNPROVEN_CONNECTIONS_PER_ADDRESS),
                        RaftPortSettings.DEFAULT.handshakeDeadline(),
                        s.peerTls() == null
                                ? null
                                : s.peerTls().writeKeyStore(s.dataDir().resolve("tls")),
                        name -> refusals.refused(Limit.byKey(name))))
                .withCounting(COUNTED)
                .withForceNewCluster(s.forceNewCluster());
        RaftKvStore store = RaftKvStore.start(config);
        Auth auth = Auth.start(store, s.auth(), s.dataDir());
        checks.add(s.browserOrigins()); // first: a page's request is refused before any token is looked at
        checks.add(auth.check());
        ConfigService configs = new ConfigService(
                store, ConfigService.DEFAULT_MAX_CONTENT_BYTES, s.limits().quota(Limit.QUOTA_CONFIGS_PER_NAMESPACE));
        NamespaceService namespaces = new NamespaceService(store, s.limits().quota(Limit.QUOTA_NAMESPACES));
        store.onCapRefused(name -> refusals.refused(Limit.byKey(name)));
        LongPollRegistry listeners = new LongPollRegistry(
                store,
                configs,
                LongPollRegistry.NACOS_MIN_HOLD_MS,
                new LongPollRegistry.HoldCaps(
                        s.limits().intValue(Limit.LONGPOLL_HELD),
                        s.limits().intValue(Limit.LONGPOLL_HELD_PER_ADDRESS),
                        name -> refusals.refused(Limit.byKey(name))));
        PushHub push = new PushHub(store, configs);
        Naming naming = Naming.start(store, s, refusals);
        NodeReadiness readiness = new NodeReadiness(store, naming.service());
        Metrics metrics = new Metrics(store, readiness, refusals);
        metrics.healthProbes(naming.health());
        metrics.logins(auth);
        // gRPC first: HTTP answers readiness, and a client that saw it ready connects to both
        GrpcApi grpc = null;
        if (s.grpcPort() >= 0) {
            try {
                grpc = GrpcApi.start(
                        s.host(),
                        s.grpcPort(),
                        s.limits(),
                        checks,
                        new GrpcApi.Services(store, configs, listeners, push, naming.service(), metrics),
                        s.tls());
            } catch (IOException | RuntimeException e) {
                auth.close();
                naming.close();
                push.close();
                listeners.close();
                store.close();
                throw new IllegalStateException(
                        "cannot serve gRPC on " + s.host() + ":" + s.grpcPort() + ": " + e.getMessage()
                                + "; choose another --grpc-port, or -1 for none",
                        e);
            }
        }
        // answers the members' load questions from here on; its rounds start once HTTP serves
        ConnectionBalancer balance = grpc == null
                ? null
                : new ConnectionBalancer(
                        s.connectionBalance(),
                        store,
                        grpc,
                        () -> readiness.get().ready(),
                        metrics,
                        s.host() + ":" + s.httpPort(),
                        s.httpPort());
        HttpApi.Services services = new HttpApi.Services(
                store,
                configs,
                new ConfigSearch(store),
                new ConfigTransfer(store, configs, namespaces, ArchiveLimits.defaults()),
                namespaces,
                listeners,
                push,
                naming.service(),
                naming.health(),
                naming.udp(),
                readiness,
                metrics,
                grpc,
                balance,
                auth);
        Javalin http;
        try {
            http = HttpApi.create(
                    services, checks, s.host(), s.httpPort(), s.limits(), ScrapeToken.of(s.metricsToken()), s.tls());
            http.start();
        } catch (RuntimeException e) {
            if (balance != null) {
                balance.close();
            }
            if (grpc != null) {
                grpc.close();
            }
            auth.close();
            naming.close();
            push.close();
            listeners.close();
            store.close();
            throw new IllegalStateException(
                    "cannot serve HTTP on " + s.host() + ":" + s.httpPort() + ": " + e.getMessage(), e);
        }
        if (grpc != null) {
            metrics.grpcConnections(grpc::connections);
            balance.start();
        }
        boolean tls = s.tls() != null;
        LOG.info(
                "Lodestar started in {} ms: HTTP {}://{}:{}/nacos, gRPC {}, Raft {}:{}{}, DNS {}, data dir {}, {}, "
                        + "health probes to --probe-allow {}",
                ManagementFactory.getRuntimeMXBean().getUptime(),
                tls ? "https" : "http",
                s.host(),
                s.httpPort(),
                grpc == null ? "off" : s.host() + ":" + grpc.port() + (tls ? " (tls)" : " (plaintext)"),
                s.host(),
                s.raftPort(),
                s.peerTls() == null
                        ? " (plaintext, members prove the cluster secret)"
                        : " (tls" + (s.peerTls().requireMemberCertificates() ? ", mutual)" : ")"),
                naming.dns() == null ? "off" : s.host() + ":" + naming.dns().port() + " (zone lodestar.)",
                s.dataDir(),
                s.peers().isEmpty() ? "standalone" : "cluster " + s.peers(),
                s.probeScope());
        if (tls) {
            X509Certificate certificate = s.tls().certificate();
            LOG.info(
                    "TLS only on the HTTP and gRPC ports (TLS 1.2, 1.3), with the certificate {} valid until {};"
                            + " DNS and the UDP push to 1.x clients stay plain",
                    certificate.getSubjectX500Principal(),
                    certificate.getNotAfter().toInstant());
            if (certificate.getNotAfter().toInstant().isBefore(Instant.now())) {
                LOG.warn(
                        "the TLS certificate expired at {}: clients that check it will refuse to connect",
                        certificate.getNotAfter().toInstant());
            }
        }
        if (!s.auth()) {
            LOG.warn(
                    "client authentication is OFF (--auth off): anyone who reaches {}:{} can read and change every"
                            + " config and instance",
                    s.host(),
                    s.httpPort());
        }
        List<AutoCloseable> backgroundJobs = List.of(
                new HistoryRetention(store, HistoryRetention.Settings.defaults(), java.time.Clock.systemUTC()).start(),
                new ChangeLogRetention(store, ChangeLogRetention.Settings.defaults()).start(),
                new PublicAliasMigration(store).start(),
                auth);
        return new LodestarServer(store, listeners, push, naming, http, grpc, balance, backgroundJobs);
    }

    private record RoleLine(String role, String leader, long term, boolean ready, String reason) {
        @Override
        public String toString() {
            return "role " + role + ", leader " + leader + ", term " + term
                    + (ready ? ", ready" : ", not ready: " + reason);
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
            RoleLine line = new RoleLine(
                    status.state(),
                    "LEADER".equals(status.state()) ? self : status.leader(),
                    status.term(),
                    r.ready(),
                    r.ready() ? null : r.reason());
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
        if (balance != null) {
            balance.close(); // reports this node not ready, so that no member sends it clients now
        }
        if (grpc != null) {
            grpc.close(); // sends its clients to other servers first
        }
        listeners.close(); // answers held polls first, so their clients re-poll elsewhere
        push.close(); // closes push connections with 1001, so their clients reconnect
        http.stop();
        naming.close();
        for (AutoCloseable job : backgroundJobs) {
            try {
                job.close();
            } catch (Exception e) {
                LOG.warn("stopping {} failed", job, e);
            }
        }
        store.close();
    }
}
