package io.lodestar.naming.service;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.persistent.PersistentInstances;

/**
 * A service holds ephemeral or persistent instances, not both (see {@link NamingService}). Reads
 * this node's registry and replica only.
 */
final class OneKindRule {
    private final EphemeralRegistry ephemeral;
    private final PersistentInstances persistent;

    OneKindRule(EphemeralRegistry ephemeral, PersistentInstances persistent) {
        this.ephemeral = ephemeral;
        this.persistent = persistent;
    }

    /**
     * Throws {@link InvalidRequestException} on {@code ephemeral} if {@code instance} is of the
     * other kind than the instances {@code service} holds, or than the instance at its address.
     */
    void refuseMixing(ServiceKey service, Instance instance) {
        InstanceAddress address = instance.address();
        if (instance.ephemeral()) {
            if (persistent.get(service, address).isPresent()) {
                throw new InvalidRequestException(
                        "ephemeral",
                        address.hostPort() + " in cluster " + address.cluster() + " is a persistent instance of "
                                + service.groupedName() + "; deregister it first");
            }
            if (persistent.any(service)) {
                throw new InvalidRequestException(
                        "ephemeral",
                        "service " + service.groupedName()
                                + " holds persistent instances; a service holds ephemeral or persistent instances, not both");
            }
        } else {
            if (ephemeral.instance(service, address).isPresent()) {
                throw new InvalidRequestException(
                        "ephemeral",
                        address.hostPort() + " in cluster " + address.cluster() + " is an ephemeral instance of "
                                + service.groupedName() + "; deregister it first");
            }
            if (ephemeral.hasInstances(service)) {
                throw new InvalidRequestException(
                        "ephemeral",
                        "service " + service.groupedName()
                                + " holds ephemeral instances; a service holds ephemeral or persistent instances, not both");
            }
        }
    }
}
