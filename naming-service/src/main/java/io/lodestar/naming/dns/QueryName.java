package io.lodestar.naming.dns;

import java.nio.charset.StandardCharsets;
import org.xbill.DNS.Name;

/**
 * What a queried name means in the zone: the naming scheme of this package, parsed.
 *
 * @param kind which part of the scheme the name is
 * @param namespace for SERVICE and INSTANCE: the namespace label as sent
 * @param group for SERVICE and INSTANCE: the group label as sent
 * @param service for SERVICE and INSTANCE: the service label as sent
 * @param instance for INSTANCE: the instance label ({@code <ip-with-dashes>-<port>}) as sent
 * @param serviceName for SERVICE and INSTANCE: {@code <service>.<group>.<namespace>.<zone>} in
 *     the query's case, under which SRV targets are named
 */
record QueryName(Kind kind, String namespace, String group, String service, String instance, Name serviceName) {

    enum Kind {
        /** Not in the zone. */
        OUTSIDE,
        /** The zone itself. */
        APEX,
        /** One or two labels under the zone: a namespace or group, which hold names but no records. */
        EMPTY_NON_TERMINAL,
        /** {@code <service>.<group>.<namespace>.<zone>} or {@code _x._y.<service>.<group>.<namespace>.<zone>}. */
        SERVICE,
        /** {@code <instance>.<service>.<group>.<namespace>.<zone>}: an SRV target. */
        INSTANCE,
        /** In the zone but not in the scheme: does not exist. */
        NONE
    }

    /** Parses {@code qname} against {@code zone} (an absolute name). */
    static QueryName parse(Name qname, Name zone) {
        if (!qname.subdomain(zone)) {
            return of(Kind.OUTSIDE);
        }
        // labels() counts the root label on both sides
        int below = qname.labels() - zone.labels();
        switch (below) {
            case 0:
                return of(Kind.APEX);
            case 1:
            case 2:
                return of(Kind.EMPTY_NON_TERMINAL);
            case 3:
                return service(qname, 0, null);
            case 4:
                return service(qname, 1, label(qname, 0));
            case 5:
                return label(qname, 0).startsWith("_") && label(qname, 1).startsWith("_")
                        ? service(qname, 2, null)
                        : of(Kind.NONE);
            default:
                return of(Kind.NONE);
        }
    }

    private static QueryName service(Name qname, int first, String instance) {
        return new QueryName(
                instance == null ? Kind.SERVICE : Kind.INSTANCE,
                label(qname, first + 2),
                label(qname, first + 1),
                label(qname, first),
                instance,
                first == 0 ? qname : new Name(qname, first));
    }

    private static QueryName of(Kind kind) {
        return new QueryName(kind, null, null, null, null, null);
    }

    /** The label's bytes as UTF-8 text, unescaped (a label may hold any byte, even '.'). */
    private static String label(Name name, int i) {
        byte[] wire = name.getLabel(i); // length byte first
        return new String(wire, 1, wire.length - 1, StandardCharsets.UTF_8);
    }

    /**
     * The label naming an instance under its service: its address with {@code .} and {@code :}
     * as {@code -}, then its port ({@code 10.0.0.7:8080} is {@code 10-0-0-7-8080}, {@code
     * 2001:db8::1:8080} is {@code 2001-db8--1-8080}). At most 46 characters, so always a valid label.
     */
    static String instanceLabel(String ip, int port) {
        return ip.replace('.', '-').replace(':', '-') + "-" + port;
    }
}
