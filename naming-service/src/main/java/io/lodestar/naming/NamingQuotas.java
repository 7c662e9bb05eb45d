package io.lodestar.naming;

import java.util.function.Consumer;

/**
 * How much the registry holds at most. The persistent quotas are kept by the store, in the command
 * of each write ({@link NamingKeyspaces#COUNTED}), so every member decides alike; the ephemeral ones
 * are counted in memory by the member that owns the service under Distro (AP, as the instances
 * themselves), and two registrations racing on different members may pass one by a few.
 *
 * @param servicesPerNamespace      stored service definitions in one namespace (a persistent
 *                                  registration and the service API store one)
 * @param instancesPerService       persistent instances of one service
 * @param ephemeralPerService       ephemeral instances of one service, checked by its owner
 * @param ephemeralInstances        ephemeral instances in the owner's registry, every service's
 * @param refused                   told the quota's name each time an ephemeral quota refuses a
 *                                  registration (the store tells the node of its own refusals)
 */
public record NamingQuotas(
        long servicesPerNamespace,
        long instancesPerService,
        long ephemeralPerService,
        long ephemeralInstances,
        Consumer<String> refused) {
    public static final String SERVICES_PER_NAMESPACE_LIMIT = "quota.services-per-namespace";
    public static final String INSTANCES_PER_SERVICE_LIMIT = "quota.instances-per-service";
    public static final String EPHEMERAL_PER_SERVICE_LIMIT = "quota.ephemeral-instances-per-service";
    public static final String EPHEMERAL_INSTANCES_LIMIT = "quota.ephemeral-instances";

    /** No quota: as many of each as a long counts. */
    public static final NamingQuotas NONE =
            new NamingQuotas(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, name -> {});
}
