package io.lodestar.api.server;

import io.lodestar.api.auth.BrowserOrigins;
import io.lodestar.api.balance.BalanceSettings;
import io.lodestar.api.limits.Limits;
import io.lodestar.api.tls.ServerTls;
import io.lodestar.kv.testing.FreePorts;
import io.lodestar.naming.dns.DnsNamespaces;
import io.lodestar.naming.health.ProbeScope;
import java.nio.file.Path;
import java.util.List;

/** A standalone node's settings for an in-JVM test: loopback, a free Raft port, no DNS, probes to loopback only. */
public final class TestSettings {
    private TestSettings() {}

    public static ServerSettings standalone(Path dataDir, int httpPort, int grpcPort) {
        return standalone(dataDir, httpPort, grpcPort, false);
    }

    /** As {@link #standalone(Path, int, int)}, with client authentication on or off. */
    public static ServerSettings standalone(Path dataDir, int httpPort, int grpcPort, boolean auth) {
        return standalone(dataDir, httpPort, grpcPort, auth, Limits.defaults());
    }

    /** As {@link #standalone(Path, int, int, boolean)}, within {@code limits}. */
    public static ServerSettings standalone(Path dataDir, int httpPort, int grpcPort, boolean auth, Limits limits) {
        return new ServerSettings(
                "127.0.0.1",
                httpPort,
                grpcPort,
                limits,
                FreePorts.next(),
                dataDir,
                List.of(),
                null,
                3600,
                20_000,
                64L << 20,
                0,
                -1,
                DnsNamespaces.parse(DnsNamespaces.DEFAULT),
                ProbeScope.parse("127.0.0.0/8"),
                auth,
                BrowserOrigins.allowing(List.of()),
                null,
                null,
                null,
                BalanceSettings.DEFAULT,
                false);
    }

    /** {@code s} with {@code /metrics} asking for {@code token}. */
    public static ServerSettings withMetricsToken(ServerSettings s, byte[] token) {
        return copy(s, s.browserOrigins(), token, s.tls());
    }

    /** {@code s} serving browsers from {@code origins}. */
    public static ServerSettings withBrowserOrigins(ServerSettings s, BrowserOrigins origins) {
        return copy(s, origins, s.metricsToken(), s.tls());
    }

    /** {@code s} serving its HTTP and gRPC ports over TLS only, with {@code tls}. */
    public static ServerSettings withTls(ServerSettings s, ServerTls tls) {
        return copy(s, s.browserOrigins(), s.metricsToken(), tls);
    }

    private static ServerSettings copy(ServerSettings s, BrowserOrigins origins, byte[] token, ServerTls tls) {
        return new ServerSettings(
                s.host(),
                s.httpPort(),
                s.grpcPort(),
                s.limits(),
                s.raftPort(),
                s.dataDir(),
                s.peers(),
                s.clusterSecret(),
                s.snapshotIntervalSecs(),
                s.snapshotEntries(),
                s.snapshotBytes(),
                s.diskReserveBytes(),
                s.dnsPort(),
                s.dnsNamespaces(),
                s.probeScope(),
                s.auth(),
                origins,
                token,
                tls,
                s.peerTls(),
                s.connectionBalance(),
                s.forceNewCluster());
    }
}
