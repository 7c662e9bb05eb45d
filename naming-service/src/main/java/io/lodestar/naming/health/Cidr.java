package io.lodestar.naming.health;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** An IPv4 or IPv6 network in CIDR notation ({@code 10.0.0.0/8}, {@code fd00::/8}); a bare address is its own /32 or /128. */
final class Cidr {
    private final byte[] network;
    private final int prefix;
    private final String text;

    private Cidr(byte[] network, int prefix, String text) {
        this.network = network;
        this.prefix = prefix;
        this.text = text;
    }

    /**
     * Parses {@code address[/prefix]}; only IP literals, never a name lookup. An {@link
     * IllegalArgumentException} says what is wrong; host bits set below the prefix are refused, since
     * {@code 10.1.2.3/8} is more often a typo than a wish for {@code 10.0.0.0/8}.
     */
    static Cidr parse(String text) {
        String s = text.trim();
        int slash = s.indexOf('/');
        String address = slash < 0 ? s : s.substring(0, slash);
        if (address.isEmpty() || !isIpLiteral(address) || address.indexOf('%') >= 0) {
            throw new IllegalArgumentException("'" + text + "' is not an IP network (address/prefix, e.g. 10.0.0.0/8)");
        }
        byte[] bytes;
        try {
            bytes = InetAddress.getByName(address).getAddress(); // a literal: parsed, not looked up
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IP network: " + e.getMessage());
        }
        int bits = bytes.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = s.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException("'" + text + "': the prefix must be 0 to " + bits);
            }
            prefix = Integer.parseInt(p);
        }
        if (!Arrays.equals(bytes, masked(bytes, prefix))) {
            throw new IllegalArgumentException("'" + text + "' has host bits set below /" + prefix);
        }
        return new Cidr(bytes, prefix, s);
    }

    /** The network {@code address} is on with a {@code prefix}-bit mask (its host bits cleared). */
    static Cidr networkOf(InetAddress address, int prefix) {
        byte[] network = masked(address.getAddress(), prefix);
        try {
            return new Cidr(network, prefix, InetAddress.getByAddress(network).getHostAddress() + "/" + prefix);
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // the bytes of an address are an address
        }
    }

    boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        return a.length == network.length && Arrays.equals(masked(a, prefix), network);
    }

    private static byte[] masked(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int bit = prefix; bit < out.length * 8; bit++) {
            out[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return out;
    }

    @Override
    public String toString() {
        return text;
    }

    /** An IPv4 dotted quad or an IPv6 literal: an address the JDK parses without a name lookup. */
    static boolean isIpLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true; // a host name cannot hold ':'; a malformed IPv6 literal fails without a lookup
        }
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String part : parts) {
            if (part.isEmpty()
                    || part.length() > 3
                    || !part.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }
}
