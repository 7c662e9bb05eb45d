package io.lodestar.config;

import java.util.List;

/**
 * A gray release (beta) of a config: content served, instead of the stable config, only to clients
 * whose IP is in {@code betaIps} (canonical literals, see {@link BetaIps}). A beta may exist without
 * a stable config. At most one beta per config; publishing another replaces it.
 */
public record BetaConfig(
        ConfigKey key,
        String content,
        String md5,
        List<String> betaIps,
        String srcIp,
        String srcUser,
        long createTime,
        long modifyTime,
        long createRevision,
        long modRevision) {
    public BetaConfig {
        betaIps = List.copyOf(betaIps);
    }

    /** Whether a client connecting from {@code clientIp} (the socket's address) gets this beta. */
    public boolean servesTo(String clientIp) {
        if (clientIp != null && clientIp.length() > 2 && clientIp.startsWith("[") && clientIp.endsWith("]")) {
            clientIp = clientIp.substring(1, clientIp.length() - 1); // some servers bracket IPv6 remote addresses
        }
        String canonical = BetaIps.canonical(clientIp);
        return canonical != null && betaIps.contains(canonical);
    }

    /** The IPs as Nacos shows them: joined by commas. */
    public String betaIpsJoined() {
        return String.join(",", betaIps);
    }
}
