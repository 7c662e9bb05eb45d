package io.lodestar.naming.query;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The answer to an instance-list query: what {@code GET /instance/list} and a push carry.
 *
 * @param service                  the service asked for ({@link #name()} is its grouped name)
 * @param clusters                 the cluster filter echoed back, names joined by {@code ,} in the
 *                                 order given ({@code ""} for none); Nacos clients key their caches by it
 * @param hosts                    the selected instances
 * @param lastRefTime              when this answer was computed, epoch milliseconds
 * @param checksum                 {@link Checksums#of} the hosts
 * @param reachProtectionThreshold the protect threshold was reached: every enabled instance of the
 *                                 filtered clusters is listed, unhealthy ones reported healthy
 */
public record ServiceView(
        ServiceKey service,
        String clusters,
        List<Instance> hosts,
        long lastRefTime,
        String checksum,
        boolean reachProtectionThreshold) {

    public ServiceView {
        hosts = List.copyOf(hosts);
    }

    /** {@code GROUP@@name}, the {@code name} Nacos clients expect. */
    public String name() {
        return service.groupedName();
    }
}
