package io.lodestar.config;

import io.lodestar.error.InvalidRequestException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code betaIps} list of a gray release: comma-separated IPv4 or IPv6 literals, never host
 * names (nothing here resolves a name). Stored and compared in canonical form
 * ({@link InetAddress#getHostAddress()}), so {@code ::1} and {@code 0:0:0:0:0:0:0:1} are one client.
 */
public final class BetaIps {
    public static final String FIELD = "betaIps";
    public static final int MAX_IPS = 256;

    private BetaIps() {}

    /** The distinct canonical IPs of {@code list}, in order; {@link InvalidRequestException} naming {@value #FIELD} otherwise. */
    public static List<String> parse(String list) {
        if (list == null || list.isBlank()) {
            throw new InvalidRequestException(FIELD, "must list at least one IP");
        }
        String[] parts = list.split(",", -1);
        if (parts.length > MAX_IPS) {
            throw new InvalidRequestException(FIELD, parts.length + " entries exceed the limit of " + MAX_IPS);
        }
        Set<String> ips = new LinkedHashSet<>();
        for (String part : parts) {
            String ip = part.trim();
            if (ip.isEmpty()) {
                throw new InvalidRequestException(FIELD, "empty entry in '" + abbreviate(list) + "'");
            }
            String canonical = canonical(ip);
            if (canonical == null) {
                throw new InvalidRequestException(FIELD, "'" + abbreviate(ip) + "' is not an IPv4 or IPv6 address");
            }
            ips.add(canonical);
        }
        return new ArrayList<>(ips);
    }

    /** The canonical form of an IP literal, or null if {@code ip} is not one (host names included). */
    public static String canonical(String ip) {
        if (ip == null || ip.isEmpty() || ip.length() > 45) {
            return null;
        }
        if (ip.indexOf(':') < 0) {
            return ipv4(ip) ? ip : null;
        }
        for (int i = 0; i < ip.length(); i++) {
            char c = ip.charAt(i);
            boolean ok = Character.digit(c, 16) >= 0 || c == ':' || c == '.';
            if (!ok) { // no brackets, zone ids (%eth0) or letters beyond hex
                return null;
            }
        }
        try {
            // a string with ':' is parsed as an IPv6 literal only, never looked up as a name
            return InetAddress.getByName(ip).getHostAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Dotted quad, each part 0..255 without leading zeros (which some readers take as octal). */
    private static boolean ipv4(String ip) {
        String[] parts = ip.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')) {
                return false;
            }
            for (int i = 0; i < p.length(); i++) {
                if (p.charAt(i) < '0' || p.charAt(i) > '9') {
                    return false;
                }
            }
            if (Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
