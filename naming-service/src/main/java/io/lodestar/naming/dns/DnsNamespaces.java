package io.lodestar.naming.dns;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The namespaces whose services DNS answers for. DNS has no caller to check, so whoever reaches its
 * port learns the addresses of every service it serves: by default that is the public namespace
 * only, and an operator names others (or {@value #ALL}) on purpose. A query for a namespace not
 * served is answered as for a service that does not exist, so it does not tell which namespaces do.
 */
public final class DnsNamespaces {
    /** Every namespace. */
    public static final String ALL = "all";
    /** The default: the public namespace only. */
    public static final String DEFAULT = "public";

    private final Set<String> lowerCased; // null: all

    private DnsNamespaces(Set<String> lowerCased) {
        this.lowerCased = lowerCased;
    }

    /**
     * {@value #ALL}, or namespace ids separated by commas ({@code public} for the public one). An
     * {@link IllegalArgumentException} names an empty entry.
     */
    public static DnsNamespaces parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("give namespace ids separated by commas, or '" + ALL + "'");
        }
        if (spec.trim().equalsIgnoreCase(ALL)) {
            return new DnsNamespaces(null);
        }
        Set<String> ids = new HashSet<>();
        for (String part : spec.split(",", -1)) {
            String id = part.trim();
            if (id.isEmpty()) {
                throw new IllegalArgumentException("'" + spec + "' has an empty namespace id");
            }
            ids.add(id.toLowerCase(Locale.ROOT)); // DNS names match ignoring case
        }
        return new DnsNamespaces(Set.copyOf(ids));
    }

    /** Whether DNS answers for {@code namespace} (matched ignoring case, as DNS names are). */
    public boolean serves(String namespace) {
        return lowerCased == null || lowerCased.contains(namespace.toLowerCase(Locale.ROOT));
    }

    @Override
    public String toString() {
        return lowerCased == null
                ? ALL
                : String.join(",", lowerCased.stream().sorted().toList());
    }
}
