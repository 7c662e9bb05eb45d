package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.error.LodestarException;
import io.lodestar.naming.model.ServiceKey;

/**
 * Base of the registry's refusals that depend on the current state (a service that exists, is
 * missing or still holds instances; an instance that is missing; a health flag that a probe owns).
 * Nothing was written when one is raised. Malformed input is {@link
 * io.lodestar.error.InvalidRequestException} instead.
 */
public abstract class NamingException extends LodestarException {
    private static final long serialVersionUID = 1L;
    private final transient ServiceKey service;

    protected NamingException(ErrorKind kind, ServiceKey service, String message) {
        super(kind, service.groupedName(), message);
        this.service = service;
    }

    public ServiceKey service() {
        return service;
    }
}
