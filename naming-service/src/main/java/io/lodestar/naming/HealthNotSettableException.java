package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;

/**
 * A manual health change ({@code PUT /health/instance}) of an instance whose health something else
 * owns: its heartbeats (ephemeral) or its cluster's probe (persistent, checker not NONE). Nacos
 * answers 400.
 */
public final class HealthNotSettableException extends NamingException {
    private static final long serialVersionUID = 1L;

    public HealthNotSettableException(ServiceKey service, InstanceAddress address, String reason) {
        super(
                ErrorKind.REFUSED,
                service,
                "health of " + address + " in " + service.groupedName() + " cannot be set by hand: " + reason);
    }
}
