package io.lodestar.naming;

import io.lodestar.error.ErrorKind;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;

/** An edit of an instance the service does not have. */
public final class InstanceNotFoundException extends NamingException {
    private static final long serialVersionUID = 1L;
    private final transient InstanceAddress address;

    public InstanceNotFoundException(ServiceKey service, InstanceAddress address) {
        super(ErrorKind.NOT_FOUND, service, "instance " + address + " not found in service " + service.groupedName());
        this.address = address;
    }

    public InstanceAddress address() {
        return address;
    }
}
