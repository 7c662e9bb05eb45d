package io.lodestar.api.server;

import io.lodestar.api.auth.BrowserOrigins;
import io.lodestar.api.balance.BalanceSettings;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.tls.PeerCertificates;
import io.lodestar.api.tls.ServerTls;
import io.lodestar.naming.dns.DnsNamespaces;
import io.lodestar.naming.health.ProbeScope;
import java.nio.file.Path;
import java.util.List;

/**
 * A node's settings as {@code lodestar server} takes them from its flags, LODESTAR_* variables and
 * settings file (docs/operations.md). {@code clusterSecret} is null in standalone
 * mode when none was given: one is then generated for this install. {@code grpcPort} is where
 * nacos-client 2.x/3.x connects (0 picks any free port, -1 turns gRPC off); {@code limits} bounds
 * what clients may hold and send (docs/limits.md). {@code dnsPort} 0 picks any
 * free port, -1 turns the DNS interface off; DNS answers for {@code dnsNamespaces}. {@code probeScope} bounds the addresses the health
 * checks of persistent instances may connect to; {@code auth} turns client authentication on;
 * {@code browserOrigins} are the web pages that may call the node from a browser;
 * {@code metricsToken}, when not null, is the bearer token {@code /metrics} asks for; {@code tls},
 * when not null, is the certificate and key the HTTP and gRPC ports serve TLS only with; {@code peerTls}, when
 * not null, what this member shows and trusts on the Raft port, then TLS only. A snapshot is taken every {@code
 * snapshotIntervalSecs}, and sooner once {@code snapshotEntries} entries or {@code snapshotBytes}
 * bytes of log have been applied since the last; writes are refused while less than {@code
 * diskReserveBytes} are free on the data directory's filesystem. {@code forceNewCluster} makes this
 * node, at this start, the only member of its group with everything it had applied (the recovery
 * of a group that lost its majority, docs/operations.md). {@code dataDir} is made absolute
 * once, here: RocksDB's native library loader and the start-up log need it so, and every part of
 * the node then names the same directory. {@code connectionBalance} is how the node evens out
 * nacos-client connections with the other members (docs/grpc.md).
 */
public record ServerSettings(
        String host,
        int httpPort,
        int grpcPort,
        Limits limits,
        int raftPort,
        Path dataDir,
        List<String> peers,
        byte[] clusterSecret,
        int snapshotIntervalSecs,
        long snapshotEntries,
        long snapshotBytes,
        long diskReserveBytes,
        int dnsPort,
        DnsNamespaces dnsNamespaces,
        ProbeScope probeScope,
        boolean auth,
        BrowserOrigins browserOrigins,
        byte[] metricsToken,
        ServerTls tls,
        PeerCertificates peerTls,
        BalanceSettings connectionBalance,
        boolean forceNewCluster) {
    public ServerSettings {
        dataDir = dataDir.toAbsolutePath().normalize();
    }
}
