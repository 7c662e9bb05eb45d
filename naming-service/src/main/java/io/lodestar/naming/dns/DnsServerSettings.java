package io.lodestar.naming.dns;

import java.time.Duration;

/**
 * Where and how the DNS server listens and answers.
 *
 * @param host the address both sockets bind to (Lodestar's {@code --host}; 127.0.0.1 by default)
 * @param port the port of both the UDP and the TCP socket; 0 picks one free for both
 * @param zone the domain served; anything outside it is REFUSED
 * @param ttl the TTL of every record (short: instances come and go)
 * @param maxUdpPayload the largest UDP answer sent to an EDNS client (512 without EDNS)
 * @param udpThreads threads receiving and answering UDP queries
 * @param udpAnswersPerSecond answers a second to one source network over UDP ({@link UdpAnswerRate}); 0: no limit
 * @param tcpConnections TCP connections open at once; one more is closed as soon as it is accepted
 * @param tcpConnectionsPerAddress TCP connections open at once from one client address
 * @param tcpIdleTimeout how long a TCP connection may wait for (or within) a query before it is closed
 */
public record DnsServerSettings(
        String host,
        int port,
        String zone,
        Duration ttl,
        int maxUdpPayload,
        int udpThreads,
        int udpAnswersPerSecond,
        int tcpConnections,
        int tcpConnectionsPerAddress,
        Duration tcpIdleTimeout) {
    public static final int DEFAULT_PORT = 8853;
    public static final String DEFAULT_ZONE = "lodestar.";
    /** Classic DNS over UDP without EDNS. */
    public static final int CLASSIC_UDP_PAYLOAD = 512;
    /** The EDNS size that avoids IP fragmentation on common paths (DNS flag day 2020). */
    public static final int DEFAULT_MAX_UDP_PAYLOAD = 1232;
    /** Enough for a /24 of clients each asking for a few names every TTL. */
    public static final int DEFAULT_UDP_ANSWERS_PER_SECOND = 2_000;

    public DnsServerSettings {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host is required");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("not a port: " + port);
        }
        if (zone == null || zone.isBlank()) {
            throw new IllegalArgumentException("zone is required");
        }
        zone = zone.endsWith(".") ? zone : zone + ".";
        if (ttl == null || ttl.isNegative()) {
            throw new IllegalArgumentException("ttl must be zero or more: " + ttl);
        }
        if (maxUdpPayload < CLASSIC_UDP_PAYLOAD || maxUdpPayload > 65_535) {
            throw new IllegalArgumentException("maxUdpPayload must be 512..65535: " + maxUdpPayload);
        }
        if (udpAnswersPerSecond < 0) {
            throw new IllegalArgumentException(
                    "udpAnswersPerSecond must be 0 (no limit) or more: " + udpAnswersPerSecond);
        }
        if (udpThreads < 1 || tcpConnections < 1 || tcpConnectionsPerAddress < 1) {
            throw new IllegalArgumentException("need at least one UDP thread and room for one TCP connection");
        }
        if (tcpIdleTimeout == null || tcpIdleTimeout.isNegative() || tcpIdleTimeout.isZero()) {
            throw new IllegalArgumentException("tcpIdleTimeout must be positive: " + tcpIdleTimeout);
        }
    }

    /**
     * 127.0.0.1:8853, zone {@code lodestar.}, TTL 1 s, EDNS answers up to 1232 bytes, 2 UDP
     * threads answering one source network {@value #DEFAULT_UDP_ANSWERS_PER_SECOND} times a second
     * at most, 1024 TCP connections (64 from one address), each exchange within 5 s.
     */
    public static DnsServerSettings defaults() {
        return new DnsServerSettings(
                "127.0.0.1",
                DEFAULT_PORT,
                DEFAULT_ZONE,
                Duration.ofSeconds(1),
                DEFAULT_MAX_UDP_PAYLOAD,
                2,
                DEFAULT_UDP_ANSWERS_PER_SECOND,
                1024,
                64,
                Duration.ofSeconds(5));
    }

    public DnsServerSettings withAddress(String newHost, int newPort) {
        return new DnsServerSettings(
                newHost,
                newPort,
                zone,
                ttl,
                maxUdpPayload,
                udpThreads,
                udpAnswersPerSecond,
                tcpConnections,
                tcpConnectionsPerAddress,
                tcpIdleTimeout);
    }

    public DnsServerSettings withTtl(Duration newTtl) {
        return new DnsServerSettings(
                host,
                port,
                zone,
                newTtl,
                maxUdpPayload,
                udpThreads,
                udpAnswersPerSecond,
                tcpConnections,
                tcpConnectionsPerAddress,
                tcpIdleTimeout);
    }

    public DnsServerSettings withTcp(int connections, int perAddress, Duration idleTimeout) {
        return new DnsServerSettings(
                host,
                port,
                zone,
                ttl,
                maxUdpPayload,
                udpThreads,
                udpAnswersPerSecond,
                connections,
                perAddress,
                idleTimeout);
    }

    public DnsServerSettings withUdpAnswersPerSecond(int perSecond) {
        return new DnsServerSettings(
                host,
                port,
                zone,
                ttl,
                maxUdpPayload,
                udpThreads,
                perSecond,
                tcpConnections,
                tcpConnectionsPerAddress,
                tcpIdleTimeout);
    }
}
