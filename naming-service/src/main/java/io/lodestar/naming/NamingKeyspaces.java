package io.lodestar.naming;

import io.lodestar.kv.count.CountRules;
import java.util.Map;
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

    /**
     * The keys the store counts for the quotas: service definitions by namespace, persistent
     * instances by service (their keys' first one and three parts).
     */
    public static final CountRules COUNTED = CountRules.of(Map.of(SERVICE, 1, INSTANCE, 3));

    private NamingKeyspaces() {}
}
