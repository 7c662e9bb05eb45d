package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.Checksums;
import java.util.List;

/**
 * The ephemeral instances of one service at one moment, as readers see them; members compare their
 * copies by {@link #checksum} ({@link Checksums}). Beat times are not part of it: each node ages
 * what it owns, a replica trusts its owner.
 *
 * <p>The checksum is computed when first asked for: every visible change publishes a snapshot, and
 * hashing the whole service each time made a registration cost time and garbage in proportion to
 * the service's size, while only replica verification asks for it, once per interval.
 */
public final class ServiceSnapshot {
    private final ServiceKey service;
    private final List<Instance> instances;
    private volatile String checksum; // racing first callers compute the same value

    public ServiceSnapshot(ServiceKey service, List<Instance> instances) {
        this.service = service;
        this.instances = List.copyOf(instances);
    }

    public ServiceKey service() {
        return service;
    }

    public List<Instance> instances() {
        return instances;
    }

    public String checksum() {
        String c = checksum;
        if (c == null) {
            c = Checksums.of(instances);
            checksum = c;
        }
        return c;
    }

    @Override
    public String toString() {
        return "ServiceSnapshot[" + service + ", " + instances.size() + " instances]";
    }
}
