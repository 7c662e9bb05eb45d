package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.naming.model.ServiceKey;

/** A delete of a service that still has instances. */
public final class ServiceNotEmptyException extends NamingException {
    private static final long serialVersionUID = 1L;

    public ServiceNotEmptyException(ServiceKey service) {
        super(
                ErrorKind.REFUSED,
                service,
                "service " + service.groupedName() + " still has instances: deregister them first");
    }
}
