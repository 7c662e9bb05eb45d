package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The ephemeral instances of one service at one moment, as readers see them; members compare their
 * copies by {@code checksum} ({@link io.lodestar.naming.query.Checksums}). Beat times are not part
 * of it: each node ages what it owns, a replica trusts its owner.
 */
public record ServiceSnapshot(ServiceKey service, List<Instance> instances, String checksum) {

    public ServiceSnapshot {
        instances = List.copyOf(instances);
    }
}
