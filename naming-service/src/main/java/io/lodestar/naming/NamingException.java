package io.lodestar.naming;

import io.lodestar.naming.model.ServiceKey;

/**
 * Base of the registry's refusals that depend on the current state (a service that exists, is
 * missing or still holds instances; an instance that is missing; a health flag that a probe owns).
 * Nothing was written when one is raised. The API layer maps each subtype to a status in one place;
 * malformed input is {@link io.lodestar.kv.InvalidRequestException} instead.
 */
public abstract class NamingException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient ServiceKey service;

    protected NamingException(ServiceKey service, String message) {
        super(message);
        this.service = service;
    }

    public ServiceKey service() {
        return service;
    }
}
