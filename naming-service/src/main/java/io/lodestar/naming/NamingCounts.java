package io.lodestar.naming;

/** Sizes for metrics, as this node sees them. */
public record NamingCounts(int services, int ephemeralInstances, int persistentInstances) {

    public int instances() {
        return ephemeralInstances + persistentInstances;
    }
}
