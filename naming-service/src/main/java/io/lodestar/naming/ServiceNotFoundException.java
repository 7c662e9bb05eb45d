package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.naming.model.ServiceKey;

/** An operation on a service that does not exist; Nacos answers 400 {@code service ... not found!}. */
public final class ServiceNotFoundException extends NamingException {
    private static final long serialVersionUID = 1L;

    public ServiceNotFoundException(ServiceKey service) {
        super(ErrorKind.REFUSED, service, "service " + service.groupedName() + " not found!");
    }
}
