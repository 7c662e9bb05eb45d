package io.lodestar.naming.query;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Selects the instances a list query answers with, as Nacos 2.x does
 * ({@code ServiceUtil.selectInstancesWithHealthyProtection}):
 *
 * <ol>
 *   <li>keep the enabled instances of the requested clusters (all clusters when none are named);
 *   <li>if some are left and {@code healthy / kept <= protectThreshold}, the threshold is reached:
 *       answer every kept instance, the unhealthy ones reported healthy, so clients that filter on
 *       health still spread load over all of them instead of crushing the few healthy ones;
 *   <li>otherwise answer the kept instances, only the healthy ones when {@code healthyOnly}.
 * </ol>
 *
 * <p>Note the {@code <=}: with the default threshold 0 a service whose instances are all unhealthy
 * reaches it and lists them all, as Nacos does. Pure and thread-safe.
 */
public final class InstanceSelector {
    private InstanceSelector() {}

    public static ServiceView select(ServiceKey service, List<Instance> instances, double protectThreshold,
                                     Set<String> clusters, boolean healthyOnly, long now, boolean emptyProtection) {
        List<Instance> kept = new ArrayList<>(instances.size());
        int healthy = 0;
        for (Instance i : instances) {
            if (i.enabled() && (clusters.isEmpty() || clusters.contains(i.cluster()))) {
                kept.add(i);
                if (i.healthy()) {
                    healthy++;
                }
            }
        }
        boolean reached = !kept.isEmpty() && (double) healthy / kept.size() <= protectThreshold;
        List<Instance> hosts;
        if (reached) {
            hosts = new ArrayList<>(kept.size());
            for (Instance i : kept) {
                hosts.add(i.withHealthy(true));
            }
        } else if (healthyOnly) {
            hosts = kept.stream().filter(Instance::healthy).toList();
        } else {
            hosts = kept;
        }
        return new ServiceView(service, String.join(",", clusters), hosts, now, Checksums.of(hosts), reached,
                emptyProtection);
    }
}
