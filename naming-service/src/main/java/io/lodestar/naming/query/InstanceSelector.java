package io.lodestar.naming.query;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Selects the instances a list query answers with, as Nacos does:
 *
 * <ol>
 *   <li>keep the enabled instances of the requested clusters (all clusters when none are named);
 *   <li>if the service has a protect threshold, some are left and {@code healthy / kept <=
 *       threshold}, the threshold is reached: answer every kept instance, the unhealthy ones
 *       reported healthy, so clients that filter on health still spread load over all of them
 *       instead of crushing the few healthy ones;
 *   <li>otherwise answer the kept instances as they are, only the healthy ones when {@code
 *       healthyOnly}.
 * </ol>
 *
 * <p>Which services have a threshold, and what {@code <=} means at 0, follow Nacos 2.x's {@code
 * ServiceUtil.selectInstancesWithHealthyProtection}: it applies the threshold only to a service
 * with stored metadata (created or edited through the service or cluster API, never one that
 * exists only through registrations), so a service that only registrations made lists a dead
 * instance as unhealthy; a defined service at threshold 0 whose instances are all unhealthy
 * reaches it ({@code 0 <= 0}) and lists them all as healthy. Where 2.x divides by the list already
 * filtered to healthy instances when {@code healthyOnly} (so its threshold never adds an unhealthy
 * instance to such an answer), this divides by every kept instance, as Nacos 1.x's {@code
 * InstanceController.doSrvIpxt} did and the threshold is documented to mean. Pure and thread-safe.
 */
public final class InstanceSelector {
    private InstanceSelector() {}

    /** {@code protectThreshold} is empty for a service without a stored definition: no threshold. */
    public static ServiceView select(
            ServiceKey service,
            List<Instance> instances,
            OptionalDouble protectThreshold,
            Set<String> clusters,
            boolean healthyOnly,
            long now) {
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
        boolean reached = protectThreshold.isPresent()
                && !kept.isEmpty()
                && (double) healthy / kept.size() <= protectThreshold.getAsDouble();
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
        return new ServiceView(service, String.join(",", clusters), hosts, now, Checksums.of(hosts), reached);
    }
}
