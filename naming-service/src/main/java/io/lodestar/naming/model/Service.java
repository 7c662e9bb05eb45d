package io.lodestar.naming.model;

import java.util.List;

/**
 * A service as this node sees it: its spec, whether that spec is stored (created through the API,
 * updated, or implied by a persistent registration) or the default of a service that only exists
 * through ephemeral registrations, and its clusters with instance counts.
 *
 * @param clusters every cluster that has instances or its own health-check settings, by name
 */
public record Service(
        ServiceKey key,
        ServiceSpec spec,
        boolean stored,
        List<ClusterSummary> clusters,
        int ephemeralInstances,
        int persistentInstances,
        int healthyInstances) {

    public Service {
        clusters = List.copyOf(clusters);
    }

    public int instances() {
        return ephemeralInstances + persistentInstances;
    }

    /** One cluster of a service with its probe settings and instance counts. */
    public record ClusterSummary(String name, HealthCheckSettings healthCheck, int instances, int healthyInstances) {}
}
