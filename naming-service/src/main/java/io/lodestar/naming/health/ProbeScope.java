package io.lodestar.naming.health;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The addresses the health checker may connect to: a probe goes only to an address inside one of
 * the allowed networks and outside every network in {@link #NEVER}. Without this, registering a
 * persistent instance makes the leader dial any address the caller names, which turns the registry
 * into a port scanner of its own network and a client of the cloud's metadata service.
 *
 * <p>{@link #NEVER} holds no address a service instance can have: "this network" (a connect to
 * 0.0.0.0 reaches the local host), link-local (169.254.169.254 is the metadata service of AWS, GCP,
 * Azure and OpenStack), the metadata addresses of Alibaba Cloud and AWS over IPv6, Azure's
 * WireServer, multicast and the reserved block with the broadcast address. It applies whatever is
 * allowed, also to an IPv4 address wrapped in IPv6 (NAT64 {@code 64:ff9b::/96} or IPv4-compatible).
 *
 * <p>Immutable and thread-safe.
 */
public final class ProbeScope {
    /**
     * The networks the node itself is on (its interfaces' addresses with their prefixes), loopback
     * excluded: where a registry's instances usually are, without the services only the node's own
     * host can reach. Read once at start-up.
     */
    public static final String LOCAL = "local";
    /** The default: {@link #LOCAL}. */
    public static final String DEFAULT = LOCAL;
    /** The {@code --probe-allow} value that allows nothing: no instance is probed. */
    public static final String NONE = "none";

    static final List<Cidr> NEVER = parseAll("0.0.0.0/8,169.254.0.0/16,100.100.100.200,168.63.129.16,"
            + "224.0.0.0/4,240.0.0.0/4,::/128,fe80::/10,ff00::/8,fd00:ec2::254");
    private static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
    private static final Cidr IPV4_COMPATIBLE = Cidr.parse("::/96");

    private final List<Cidr> allowed;

    private ProbeScope(List<Cidr> allowed) {
        this.allowed = List.copyOf(allowed);
    }

    /** {@link #DEFAULT}. */
    public static ProbeScope defaults() {
        return parse(DEFAULT);
    }

    /** The networks of the interfaces that are up, loopback and link-local left out. */
    static List<Cidr> localNetworks() {
        List<Cidr> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
                for (InterfaceAddress a : nic.getInterfaceAddresses()) {
                    InetAddress address = a.getAddress();
                    if (address.isLoopbackAddress() || address.isLinkLocalAddress() || a.getNetworkPrefixLength() < 0) {
                        continue;
                    }
                    Cidr network = Cidr.networkOf(address, a.getNetworkPrefixLength());
                    if (out.stream().noneMatch(c -> c.toString().equals(network.toString()))) {
                        out.add(network);
                    }
                }
            }
        } catch (SocketException e) {
            throw new IllegalStateException("cannot list this host's network interfaces: " + e.getMessage(), e);
        }
        return out;
    }

    /**
     * Parses {@code --probe-allow}: networks in CIDR notation separated by commas, {@value #LOCAL}
     * (which may be one of them) or {@value #NONE}.
     * An {@link IllegalArgumentException} names the part that is not a network.
     */
    public static ProbeScope parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException(
                    "give networks in CIDR notation, e.g. 10.0.0.0/8,192.168.0.0/16, or '" + NONE + "'");
        }
        if (spec.trim().toLowerCase(Locale.ROOT).equals(NONE)) {
            return new ProbeScope(List.of());
        }
        return new ProbeScope(parseAll(spec));
    }

    private static List<Cidr> parseAll(String spec) {
        List<Cidr> out = new ArrayList<>();
        for (String part : spec.split(",", -1)) {
            if (part.trim().equalsIgnoreCase(LOCAL)) {
                out.addAll(localNetworks());
            } else {
                out.add(Cidr.parse(part));
            }
        }
        return out;
    }

    /** Why {@code address} must not be probed, or null when it may be. */
    public String refusal(InetAddress address) {
        String never = never(address);
        if (never != null) {
            return address.getHostAddress() + " is never probed (" + never + ")";
        }
        for (Cidr c : allowed) {
            if (c.contains(address)) {
                return null;
            }
        }
        return address.getHostAddress() + " is outside --probe-allow " + this;
    }

    /**
     * As {@link #refusal(InetAddress)} for an instance's registered address when it is an IP literal;
     * null for a host name, which is checked against what it resolves to when it is probed.
     */
    public String refusal(String ip) {
        if (!Cidr.isIpLiteral(ip)) {
            return null;
        }
        try {
            return refusal(InetAddress.getByName(ip));
        } catch (UnknownHostException e) {
            return null; // not a well-formed literal: its probe fails as an unknown host
        }
    }

    private static String never(InetAddress address) {
        for (Cidr c : NEVER) {
            if (c.contains(address)) {
                return "in " + c;
            }
        }
        InetAddress embedded = embeddedIpv4(address);
        String inner = embedded == null ? null : never(embedded);
        return inner == null ? null : "wraps " + embedded.getHostAddress() + ", " + inner;
    }

    /**
     * The IPv4 address an IPv6 one stands for, by NAT64 ({@code 64:ff9b::/96}) or the old
     * IPv4-compatible form ({@code ::a.b.c.d}, but for {@code ::} and {@code ::1}, IPv6's own); else
     * null. IPv4-mapped addresses need nothing here: the JDK parses them as IPv4.
     */
    private static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return null;
        }
        byte[] b = address.getAddress();
        boolean unspecifiedOrLoopback = (b[12] | b[13] | b[14]) == 0 && (b[15] & 0xfe) == 0;
        if (!NAT64.contains(address) && (!IPV4_COMPATIBLE.contains(address) || unspecifiedOrLoopback)) {
            return null;
        }
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16));
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // four bytes are always an IPv4 address
        }
    }

    /** Whether nothing at all may be probed. */
    public boolean allowsNothing() {
        return allowed.isEmpty();
    }

    /** The setting as given ({@value #NONE} when empty). */
    @Override
    public String toString() {
        if (allowed.isEmpty()) {
            return NONE;
        }
        StringBuilder s = new StringBuilder();
        for (Cidr c : allowed) {
            s.append(s.length() == 0 ? "" : ",").append(c);
        }
        return s.toString();
    }
}
