package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The ephemeral instances of one service at one moment: the unit a replication protocol (Distro)
 * ships between nodes and compares by {@code checksum} ({@link io.lodestar.naming.query.Checksums}).
 * Beat times are not part of it: each node ages what it owns, a replica trusts its owner.
 *
 * @param lastModifiedMillis when the instances last changed visibly, by the clock of the node that
 *                           made the snapshot
 */
public record ServiceSnapshot(ServiceKey service, List<Instance> instances, String checksum, long lastModifiedMillis) {

    public ServiceSnapshot {
        instances = List.copyOf(instances);
    }
}
