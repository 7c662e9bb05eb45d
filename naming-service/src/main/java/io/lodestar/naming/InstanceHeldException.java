package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;

/**
 * A deregistration over HTTP of an instance that a gRPC client's connection holds: it belongs to
 * that connection, and goes when the connection closes (or through the admin's removal).
 */
public final class InstanceHeldException extends NamingException {
    private static final long serialVersionUID = 1L;

    public InstanceHeldException(ServiceKey service, InstanceAddress address) {
        super(
                ErrorKind.REFUSED,
                service,
                address.hostPort() + " in cluster " + address.cluster() + " of " + service.groupedName()
                        + " is held by a gRPC client's connection: it goes when that connection closes");
    }
}
