package io.lodestar.api.cli;

import io.lodestar.api.auth.BrowserOrigins;
import io.lodestar.api.balance.BalanceSettings;
import io.lodestar.api.limits.ByteSize;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.server.LodestarServer;
import io.lodestar.api.server.ServerSettings;
import io.lodestar.api.tls.PeerCertificates;
import io.lodestar.api.tls.ServerTls;
import io.lodestar.kv.KvStoreConfig;
import io.lodestar.naming.dns.DnsNamespaces;
import io.lodestar.naming.health.ProbeScope;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/** Runs a Lodestar node until SIGTERM or SIGINT, then shuts it down gracefully. */
@Command(
        name = "server",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        defaultValueProvider = ServerSettingSources.class,
        description = "Start a Lodestar node. Without --peers it is a one-node group (standalone). "
                + "With --peers, list every member (self included, as --host:--raft-port) "
                + "and give every member the same cluster secret.",
        footer = "Every option may also be set in the settings file (key: its name without '--', e.g. "
                + "data-dir) or the environment (LODESTAR_ and the name, e.g. LODESTAR_DATA_DIR); a limit by its "
                + "name (http.body-bytes) or LODESTAR_LIMIT_HTTP_BODY_BYTES. A flag beats the environment, which "
                + "beats the file. conf/lodestar.properties lists them all.")
public final class ServerCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(ServerCommand.class);
    private static final Pattern LEADING_OPTION = Pattern.compile("(--[a-z-]+)");

    enum Switch {
        on,
        off
    }

    @Spec
    CommandSpec spec;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Settings file (Java properties) read at start; flags and LODESTAR_* environment"
                    + " variables override what it sets (default: $" + ServerSettingSources.CONFIG_ENV
                    + ", else conf/lodestar.properties beside lodestar.jar if it exists).")
    Path configFile;

    @Option(
            names = "--host",
            defaultValue = "127.0.0.1",
            description =
                    "This node's address: where it binds and how it names itself in --peers (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "8848", description = "HTTP port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--grpc-port",
            paramLabel = "PORT",
            description = "gRPC port for nacos-client 2.x/3.x (default: --port + 1000, where those clients look; "
                    + "-1 = off).")
    Integer grpcPort;

    @Option(
            names = "--limit",
            paramLabel = "NAME=VALUE",
            description = "Sets one of the limits on what clients may hold and send (repeatable), e.g. "
                    + "--limit http.body-bytes=8MiB; docs/limits.md lists them with their defaults.")
    List<String> limits = new ArrayList<>();

    @Option(names = "--raft-port", defaultValue = "7848", description = "Raft port (default: ${DEFAULT-VALUE}).")
    int raftPort;

    @Option(names = "--data-dir", defaultValue = "./data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--peers",
            split = ",",
            paramLabel = "host:raftPort",
            description = "Every member of the group, self included. Omit for standalone.")
    List<String> peers = List.of();

    /** Where the cluster secret comes from when no file is named: never an argument, which ps and docker inspect show. */
    static final String CLUSTER_SECRET_ENV = "LODESTAR_CLUSTER_SECRET";

    @Option(names = "--cluster-secret", hidden = true, description = "Refused: the secret would show in ps.")
    String clusterSecret;

    @Option(
            names = "--cluster-secret-file",
            paramLabel = "PATH",
            description = "File holding the shared secret that authenticates node-to-node traffic (readable by its"
                    + " owner only, else refused); else the environment variable " + CLUSTER_SECRET_ENV
                    + ". Required with --peers.")
    Path clusterSecretFile;

    @Option(
            names = "--allowed-origins",
            split = ",",
            paramLabel = "ORIGIN[,ORIGIN...]",
            description = "Web pages (scheme://host[:port]) that may call the node from a browser, besides the"
                    + " node's own; '*' for any. A browser request from another page is refused (403).")
    List<String> allowedOrigins = List.of();

    @Option(
            names = "--metrics-token-file",
            paramLabel = "PATH",
            description = "File holding a token that /metrics then asks for as 'Authorization: Bearer TOKEN'"
                    + " (readable by its owner only, else refused). Without it /metrics is open, as scrapers expect.")
    Path metricsTokenFile;

    @Mixin
    TlsOptions tls = new TlsOptions();

    @Mixin
    PeerTlsOptions peerTls = new PeerTlsOptions();

    @Mixin
    BalanceOptions balance = new BalanceOptions();

    @Option(
            names = "--auth",
            defaultValue = "on",
            description =
                    "Client authentication: on or off (default: ${DEFAULT-VALUE}; off only for local experiments).")
    Switch auth;

    @Option(
            names = "--dns-port",
            defaultValue = "8853",
            paramLabel = "PORT",
            description = "DNS port, UDP and TCP, on --host (default: ${DEFAULT-VALUE}; 0 = any free port, -1 = off).")
    int dnsPort;

    @Option(
            names = "--dns-namespaces",
            defaultValue = DnsNamespaces.DEFAULT,
            paramLabel = "ID[,ID...]",
            description = "Namespaces whose services DNS answers for, or 'all' (default: ${DEFAULT-VALUE}). DNS"
                    + " asks for no token: whoever reaches --dns-port can look these services up.")
    String dnsNamespaces;

    @Option(
            names = "--probe-allow",
            defaultValue = ProbeScope.DEFAULT,
            paramLabel = "CIDR[,CIDR...]",
            description = "Networks the health checks of persistent instances may connect to: CIDRs, 'local' "
                    + "(the networks this host's interfaces are on, loopback excluded) or 'none' (default: "
                    + "${DEFAULT-VALUE}; 0.0.0.0/0,::/0 for every unicast address). Link-local (169.254.0.0/16, "
                    + "fe80::/10), cloud metadata addresses, multicast and 0.0.0.0/8 are never probed. "
                    + "An instance outside is not probed and keeps its registered health.")
    String probeAllow;

    @Option(
            names = "--snapshot-interval",
            defaultValue = "3600",
            paramLabel = "SECONDS",
            description = "Seconds between Raft snapshots (default: ${DEFAULT-VALUE}).")
    int snapshotIntervalSecs;

    @Option(
            names = "--snapshot-entries",
            defaultValue = "" + KvStoreConfig.DEFAULT_SNAPSHOT_ENTRIES,
            paramLabel = "N",
            description = "Also snapshot once N log entries were applied since the last snapshot (default: "
                    + "${DEFAULT-VALUE}); the log is truncated behind each snapshot.")
    long snapshotEntries;

    @Option(
            names = "--snapshot-bytes",
            defaultValue = "64MiB",
            paramLabel = "SIZE",
            description =
                    "Also snapshot once the entries since the last snapshot hold SIZE (default: ${DEFAULT-VALUE}; "
                            + "bytes, or with KiB, MiB, GiB).")
    String snapshotBytes;

    @Option(
            names = "--disk-reserve",
            defaultValue = "256MiB",
            paramLabel = "SIZE",
            description = "Refuse writes (503) while less than SIZE is free on the data directory's filesystem "
                    + "(default: ${DEFAULT-VALUE}; 0 = never); they resume once space is freed.")
    String diskReserve;

    @Option(
            names = "--force-new-cluster",
            description = "Recovery after the group lost its majority for good: start this node as the only member "
                    + "of its group, keeping all it applied; then add the others back, empty, with cluster "
                    + "add-member. For this one start only (docs/operations.md).")
    boolean forceNewCluster;

    @Override
    public Integer call() throws Exception {
        sources().load(spec);
        for (String line : sources().summary(spec, spec.commandLine().getParseResult())) {
            LOG.info("{}", line);
        }
        ServerSettings settings = settings();
        CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), s -> stop.countDown());
        Signal.handle(new Signal("INT"), s -> stop.countDown());
        LodestarServer server;
        try {
            server = LodestarServer.start(settings);
        } catch (RuntimeException e) {
            LOG.error("Lodestar failed to start: {}", e.getMessage(), e);
            return CommandLine.ExitCode.SOFTWARE;
        }
        stop.await();
        LOG.info("shutdown requested: stopping gracefully");
        server.close();
        LOG.info("Lodestar stopped");
        return CommandLine.ExitCode.OK;
    }

    /** The file and environment this command took its defaults from. */
    ServerSettingSources sources() {
        return (ServerSettingSources) spec.defaultValueProvider();
    }

    ServerSettings settings() {
        checkPort("--port", port);
        checkPort("--raft-port", raftPort);
        int grpc = grpcPort == null ? port + 1000 : grpcPort;
        if (grpc != -1) {
            checkPort("--grpc-port", grpc);
        }
        Limits parsedLimits;
        try {
            // one limit at a time: the file's and the environment's (checked already), then the flags'
            List<String> all = new ArrayList<>(sources().limitSettings());
            all.addAll(limits);
            parsedLimits = Limits.parse(all);
        } catch (IllegalArgumentException e) {
            throw usage("--limit " + e.getMessage());
        }
        if (clusterSecret != null) {
            throw usage("--cluster-secret is refused: a secret on the command line shows in ps and docker inspect;"
                    + " give --cluster-secret-file (mode 0600) or the environment variable " + CLUSTER_SECRET_ENV);
        }
        String self = host + ":" + raftPort;
        if (!peers.isEmpty()) {
            for (String peer : peers) {
                if (!peer.matches("[^:\\s]+:\\d{1,5}")) {
                    throw usage("--peers: '" + peer + "' is not host:raftPort");
                }
            }
            if (!peers.contains(self)) {
                throw usage("--peers must include this node as --host:--raft-port (" + self + ")");
            }
        }
        byte[] secret = clusterSecret();
        if (!peers.isEmpty() && secret == null) {
            throw usage("--peers needs a cluster secret: --cluster-secret-file or the environment variable "
                    + CLUSTER_SECRET_ENV);
        }
        if (secret != null && secret.length < 16) {
            throw usage("the cluster secret must be at least 16 characters");
        }
        if (dnsPort < -1 || dnsPort > 65535) {
            throw usage("--dns-port: " + dnsPort + " is not a port (0 = any free port, -1 = off)");
        }
        DnsNamespaces dnsServed;
        try {
            dnsServed = DnsNamespaces.parse(dnsNamespaces);
        } catch (IllegalArgumentException e) {
            throw usage("--dns-namespaces: " + e.getMessage());
        }
        ProbeScope probeScope;
        try {
            probeScope = ProbeScope.parse(probeAllow);
        } catch (IllegalArgumentException e) {
            throw usage("--probe-allow: " + e.getMessage());
        }
        if (snapshotIntervalSecs < 1) {
            throw usage("--snapshot-interval must be at least 1 second, got " + snapshotIntervalSecs);
        }
        if (snapshotEntries < 1) {
            throw usage("--snapshot-entries must be at least 1, got " + snapshotEntries);
        }
        long snapshotSize = size("--snapshot-bytes", snapshotBytes);
        if (snapshotSize < 1) {
            throw usage("--snapshot-bytes must be positive, got " + snapshotBytes);
        }
        ServerTls clientTls;
        PeerCertificates memberTls;
        BalanceSettings connectionBalance;
        try {
            clientTls = tls.load();
            memberTls = peerTls.load();
            connectionBalance = balance.load();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        return new ServerSettings(
                host,
                port,
                grpc,
                parsedLimits,
                raftPort,
                dataDir,
                peers,
                secret,
                snapshotIntervalSecs,
                snapshotEntries,
                snapshotSize,
                size("--disk-reserve", diskReserve),
                dnsPort,
                dnsServed,
                probeScope,
                auth == Switch.on,
                browserOrigins(),
                metricsTokenFile == null ? null : ownerOnly("--metrics-token-file", metricsTokenFile),
                clientTls,
                memberTls,
                connectionBalance,
                forceNewCluster);
    }

    /** A size in bytes: a number, optionally followed by KiB, MiB or GiB. */
    private long size(String option, String value) {
        try {
            return ByteSize.parse(value);
        } catch (IllegalArgumentException e) {
            throw usage(option + ": " + e.getMessage());
        }
    }

    private void checkPort(String name, int value) {
        if (value < 1 || value > 65535) {
            throw usage(name + " must be between 1 and 65535, got " + value);
        }
    }

    private BrowserOrigins browserOrigins() {
        try {
            return BrowserOrigins.allowing(allowedOrigins);
        } catch (IllegalArgumentException e) {
            throw usage("--allowed-origins: " + e.getMessage() + " (given: " + String.join(",", allowedOrigins) + ")");
        }
    }

    /** The secret from --cluster-secret-file (owner-only, else refused) or the environment; null if neither. */
    private byte[] clusterSecret() {
        if (clusterSecretFile != null) {
            return ownerOnly("--cluster-secret-file", clusterSecretFile);
        }
        String text = sources().env(CLUSTER_SECRET_ENV);
        return text == null || text.isBlank() ? null : text.trim().getBytes(StandardCharsets.UTF_8);
    }

    /** The trimmed, non-empty text of {@code file}, which must be readable by its owner only. */
    private byte[] ownerOnly(String option, Path file) {
        try {
            return OwnerOnlyFiles.readTrimmed(file);
        } catch (IllegalArgumentException e) {
            throw usage(option + ": " + e.getMessage());
        }
    }

    /**
     * A refusal; when the message starts with an option that the settings file or the environment
     * set, it says where, e.g. {@code (from /etc/lodestar.properties line 3)}.
     */
    private CommandLine.ParameterException usage(String message) {
        Matcher option = LEADING_OPTION.matcher(message);
        String origin = option.lookingAt() ? sources().origin(option.group(1)) : null;
        return new CommandLine.ParameterException(
                spec.commandLine(), origin == null ? message : message + " (from " + origin + ")");
    }
}
