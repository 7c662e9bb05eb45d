package io.lodestar.naming.model;

import io.lodestar.error.InvalidRequestException;
import java.util.Map;

/**
 * The registry's input rules, after Nacos 2.x's parameter checker, each rejection an {@link
 * InvalidRequestException} whose field is the Nacos parameter name:
 *
 * <ul>
 *   <li>{@code namespaceId}: letters, digits, {@code _} and {@code -}, at most {@value #MAX_NAMESPACE}
 *       characters; an id that was never created is accepted (as in Nacos).
 *   <li>{@code groupName}: letters, digits and {@code - _ . :}, at most {@value #MAX_GROUP}.
 *   <li>{@code serviceName} (without its group): letters, digits and {@code @ . _ : -} (Nacos 1.x's
 *       service-name syntax), not starting with {@code @}, never containing the group separator
 *       {@code @@}, at most {@value #MAX_SERVICE}.
 *   <li>{@code clusterName}: letters, digits, {@code -} and {@code _}, at most {@value #MAX_CLUSTER}.
 *   <li>{@code ip}: an IPv4 address, an IPv6 address (bare, optionally with a zone) or a host name
 *       (RFC 1123 labels; {@code _} tolerated as container names use it), at most {@value #MAX_IP}.
 *   <li>{@code port}: 0 to 65535 (Nacos accepts 0).
 *   <li>{@code metadata}: keys and values not null, at most {@value #MAX_METADATA_BYTES} bytes of
 *       UTF-8 in all keys and values together. Nacos's default is 1024 characters; we allow more
 *       because the limit exists to bound memory and Raft entries, and 64 KiB does that.
 * </ul>
 *
 * None of the allowed characters is NUL, so the persistent layer may join names with it.
 */
public final class NamingValidation {
    public static final int MAX_NAMESPACE = 128;
    public static final int MAX_GROUP = 128;
    public static final int MAX_SERVICE = 512;
    public static final int MAX_CLUSTER = 64;
    public static final int MAX_IP = 128;
    public static final int MAX_PORT = 65535;
    public static final int MAX_METADATA_BYTES = 64 * 1024;

    private NamingValidation() {}

    public static void checkNamespace(String namespace) {
        require("namespaceId", namespace);
        checkLength("namespaceId", namespace, MAX_NAMESPACE);
        for (int i = 0; i < namespace.length(); i++) {
            char c = namespace.charAt(i);
            if (!isLetterOrDigit(c) && c != '_' && c != '-') {
                throw illegal("namespaceId", c, "letters, digits, _ -");
            }
        }
    }

    public static void checkGroup(String group) {
        require("groupName", group);
        checkLength("groupName", group, MAX_GROUP);
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            if (!isLetterOrDigit(c) && c != '-' && c != '_' && c != '.' && c != ':') {
                throw illegal("groupName", c, "letters, digits, - _ . :");
            }
        }
    }

    /** A service name without its group prefix. */
    public static void checkServiceName(String service) {
        require("serviceName", service);
        checkLength("serviceName", service, MAX_SERVICE);
        for (int i = 0; i < service.length(); i++) {
            char c = service.charAt(i);
            if (!isLetterOrDigit(c) && c != '@' && c != '.' && c != '_' && c != ':' && c != '-') {
                throw illegal("serviceName", c, "letters, digits, @ . _ : -");
            }
        }
        if (service.charAt(0) == '@') {
            throw new InvalidRequestException("serviceName", "must not start with '@'");
        }
        if (service.contains(ServiceKey.GROUP_SEPARATOR)) {
            throw new InvalidRequestException(
                    "serviceName", "must not contain '" + ServiceKey.GROUP_SEPARATOR + "' apart from one group prefix");
        }
    }

    public static void checkCluster(String field, String cluster) {
        require(field, cluster);
        checkLength(field, cluster, MAX_CLUSTER);
        for (int i = 0; i < cluster.length(); i++) {
            char c = cluster.charAt(i);
            if (!isLetterOrDigit(c) && c != '-' && c != '_') {
                throw illegal(field, c, "letters, digits, - _");
            }
        }
    }

    public static void checkIp(String ip) {
        require("ip", ip);
        checkLength("ip", ip, MAX_IP);
        boolean ok;
        if (ip.indexOf(':') >= 0) {
            ok = isIpv6(ip);
        } else if (onlyDigitsAndDots(ip)) {
            ok = isIpv4(ip);
        } else {
            ok = isHostName(ip);
        }
        if (!ok) {
            throw new InvalidRequestException(
                    "ip", "'" + ip + "' is not an IPv4 address, an IPv6 address or a host name");
        }
    }

    public static void checkPort(int port) {
        if (port < 0 || port > MAX_PORT) {
            throw new InvalidRequestException("port", port + " is out of range 0.." + MAX_PORT);
        }
    }

    public static void checkMetadata(String field, Map<String, String> metadata) {
        long bytes = 0;
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new InvalidRequestException(field, "keys and values must not be null");
            }
            bytes += utf8Length(e.getKey()) + utf8Length(e.getValue());
        }
        if (bytes > MAX_METADATA_BYTES) {
            throw new InvalidRequestException(
                    field, bytes + " bytes of keys and values exceed the limit of " + MAX_METADATA_BYTES + " bytes");
        }
    }

    private static void require(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidRequestException(field, "is required");
        }
    }

    private static void checkLength(String field, String value, int max) {
        if (value.length() > max) {
            throw new InvalidRequestException(field, "longer than " + max + " characters");
        }
    }

    private static InvalidRequestException illegal(String field, char c, String allowed) {
        String shown = Character.isISOControl(c) || Character.isWhitespace(c)
                ? String.format("\\u%04x", (int) c)
                : String.valueOf(c);
        return new InvalidRequestException(field, "illegal character '" + shown + "' (allowed: " + allowed + ")");
    }

    private static boolean isLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    // isIpv4, onlyDigitsAndDots, utf8Length and isHostName run several times on every registration
    // and beat: plain loops, no garbage. IPv6 addresses are rare enough to be parsed the simple way.

    static boolean isIpv4(String s) {
        int parts = 0;
        int value = 0;
        int digits = 0;
        for (int i = 0; i <= s.length(); i++) {
            char c = i < s.length() ? s.charAt(i) : '.';
            if (c == '.') {
                if (digits == 0 || value > 255) {
                    return false;
                }
                parts++;
                value = 0;
                digits = 0;
            } else if (c >= '0' && c <= '9' && digits < 3) {
                value = value * 10 + (c - '0');
                digits++;
            } else {
                return false;
            }
        }
        return parts == 4;
    }

    private static boolean onlyDigitsAndDots(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    /** The length of {@code s} in UTF-8 as {@code getBytes(UTF_8)} encodes it (an unpaired surrogate as one '?'). */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += Character.isSurrogate(c) ? 1 : 3;
            }
        }
        return n;
    }

    /** Textual IPv6 (RFC 4291 section 2.2), with an optional trailing dotted IPv4 and zone id. */
    static boolean isIpv6(String s) {
        String address = s;
        int zone = s.indexOf('%');
        if (zone >= 0) {
            String id = s.substring(zone + 1);
            if (id.isEmpty()
                    || !id.chars().allMatch(c -> isLetterOrDigit((char) c) || c == '_' || c == '.' || c == '-')) {
                return false;
            }
            address = s.substring(0, zone);
        }
        int lastColon = address.lastIndexOf(':');
        if (lastColon < 0) {
            return false;
        }
        String tail = address.substring(lastColon + 1);
        if (tail.indexOf('.') >= 0) {
            if (!isIpv4(tail)) {
                return false;
            }
            // the dotted tail stands for the last two 16-bit groups
            address = address.substring(0, lastColon + 1) + "0:0";
        }
        int gap = address.indexOf("::");
        if (gap >= 0) {
            if (gap != address.lastIndexOf("::")) {
                return false;
            }
            int left = groups(address.substring(0, gap));
            int right = groups(address.substring(gap + 2));
            return left >= 0 && right >= 0 && left + right <= 7;
        }
        return groups(address) == 8;
    }

    /** The number of hex groups in a colon-separated run, or -1 if malformed. */
    private static int groups(String run) {
        if (run.isEmpty()) {
            return 0;
        }
        String[] parts = run.split(":", -1);
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 4 || !p.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                return -1;
            }
        }
        return parts.length;
    }

    static boolean isHostName(String s) {
        int end = s.endsWith(".") ? s.length() - 1 : s.length(); // one trailing dot: fully qualified
        if (s.length() > 253 || end == 0) {
            return false;
        }
        int labelStart = 0;
        for (int i = 0; i <= end; i++) {
            char c = i < end ? s.charAt(i) : '.';
            if (c == '.') {
                int length = i - labelStart;
                if (length == 0 || length > 63 || s.charAt(labelStart) == '-' || s.charAt(i - 1) == '-') {
                    return false;
                }
                labelStart = i + 1;
            } else if (!isLetterOrDigit(c) && c != '-' && c != '_') {
                return false;
            }
        }
        return true;
    }
}
