package io.lodestar.naming.dns;

import java.util.Objects;

/**
 * One instance of a service as the DNS interface needs it.
 *
 * @param ip the instance's IP literal (IPv4 answers A, IPv6 AAAA); a host name is served only in
 *     SRV answers, as the target itself
 * @param port the instance's port (SRV)
 * @param weight the instance's Nacos weight (0.01 to 10000; 0 or less takes no traffic)
 * @param healthy whether the instance is healthy
 * @param enabled whether the instance is enabled
 */
public record DnsTarget(String ip, int port, double weight, boolean healthy, boolean enabled) {
    public DnsTarget {
        Objects.requireNonNull(ip, "ip");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("not a port: " + port);
        }
    }

    /** A healthy, enabled instance. */
    public static DnsTarget serving(String ip, int port, double weight) {
        return new DnsTarget(ip, port, weight, true, true);
    }

    /**
     * Whether clients should be sent to it: healthy, enabled and with a positive weight (as the
     * Nacos client's {@code selectInstances(healthy=true)} chooses).
     */
    public boolean serves() {
        return healthy && enabled && weight > 0;
    }
}
