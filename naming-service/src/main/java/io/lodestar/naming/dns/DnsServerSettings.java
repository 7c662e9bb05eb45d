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
 * @param tcpThreads threads serving TCP connections, one connection each at a time
 * @param tcpQueue accepted TCP connections waiting for a thread; beyond that they are closed
 * @param tcpIdleTimeout how long a TCP connection may wait for (or within) a query before it is closed
 */
public record DnsServerSettings(
        String host,
        int port,
        String zone,
        Duration ttl,
        int maxUdpPayload,
        int udpThreads,
        int tcpThreads,
        int tcpQueue,
        Duration tcpIdleTimeout) {
    public static final int DEFAULT_PORT = 8853;
    public static final String DEFAULT_ZONE = "lodestar.";
    /** Classic DNS over UDP without EDNS. */
    public static final int CLASSIC_UDP_PAYLOAD = 512;
    /** The EDNS size that avoids IP fragmentation on common paths (DNS flag day 2020). */
    public static final int DEFAULT_MAX_UDP_PAYLOAD = 1232;

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
        if (udpThreads < 1 || tcpThreads < 1 || tcpQueue < 0) {
            throw new IllegalArgumentException("need at least one UDP and one TCP thread, and a queue of 0 or more");
        }
        if (tcpIdleTimeout == null || tcpIdleTimeout.isNegative() || tcpIdleTimeout.isZero()) {
            throw new IllegalArgumentException("tcpIdleTimeout must be positive: " + tcpIdleTimeout);
        }
    }

    /**
     * 127.0.0.1:8853, zone {@code lodestar.}, TTL 1 s, EDNS answers up to 1232 bytes, 2 UDP
     * threads, 4 TCP threads with 64 connections queued, TCP idle timeout 5 s.
     */
    public static DnsServerSettings defaults() {
        return new DnsServerSettings(
                "127.0.0.1",
                DEFAULT_PORT,
                DEFAULT_ZONE,
                Duration.ofSeconds(1),
                DEFAULT_MAX_UDP_PAYLOAD,
                2,
                4,
                64,
                Duration.ofSeconds(5));
    }

    public DnsServerSettings withAddress(String newHost, int newPort) {
        return new DnsServerSettings(
                newHost, newPort, zone, ttl, maxUdpPayload, udpThreads, tcpThreads, tcpQueue, tcpIdleTimeout);
    }

    public DnsServerSettings withTtl(Duration newTtl) {
        return new DnsServerSettings(
                host, port, zone, newTtl, maxUdpPayload, udpThreads, tcpThreads, tcpQueue, tcpIdleTimeout);
    }

    public DnsServerSettings withTcp(int threads, int queue, Duration idleTimeout) {
        return new DnsServerSettings(host, port, zone, ttl, maxUdpPayload, udpThreads, threads, queue, idleTimeout);
    }
}
