package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.naming.model.ServiceKey;

/** A create of a service that already exists (stored, or implied by its instances). */
public final class ServiceExistsException extends NamingException {
    private static final long serialVersionUID = 1L;

    public ServiceExistsException(ServiceKey service) {
        super(
                ErrorKind.REFUSED,
                service,
                "specified service " + service.groupedName() + " already exists in namespace " + service.namespace());
    }
}
