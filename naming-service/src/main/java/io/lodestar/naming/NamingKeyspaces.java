package io.lodestar.naming;

import java.util.Set;

/**
 * The store keyspaces the naming domain owns; the server opens the store with these plus the
 * config domain's.
 *
 * <p>Keys join their parts with NUL, which no validated name contains, so a prefix of whole parts
 * selects exactly one namespace, group or service.
 */
public final class NamingKeyspaces {
    /**
     * Stored service definitions ({@code ServiceSpec}), keyed {@code namespace NUL group NUL service}:
     * services created or updated through the API, or implied by a persistent registration.
     */
    public static final String SERVICE = "naming_service";
    /**
     * Persistent instances, one key each: {@code namespace NUL group NUL service NUL cluster NUL ip NUL port};
     * a service's instances share the prefix {@code namespace NUL group NUL service NUL}.
     */
    public static final String INSTANCE = "naming_instance";

    public static final Set<String> ALL = Set.of(SERVICE, INSTANCE);

    private NamingKeyspaces() {}
}
