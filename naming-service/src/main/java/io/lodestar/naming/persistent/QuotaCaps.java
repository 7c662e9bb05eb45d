package io.lodestar.naming.persistent;

import io.lodestar.kv.command.Cap;
import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.model.ServiceKey;

/** The caps the persistent quotas put on the store's writes: a service definition's, an instance's. */
final class QuotaCaps {
    private final NamingQuotas quotas;

    QuotaCaps(NamingQuotas quotas) {
        this.quotas = quotas;
    }

    /** For a put of {@code service}'s definition: the services of its namespace. */
    Cap definition(ServiceKey service) {
        return Cap.of(
                NamingQuotas.SERVICES_PER_NAMESPACE_LIMIT,
                quotas.servicesPerNamespace(),
                "namespace '" + service.namespace() + "' has no room for another service");
    }

    /** For a put of a persistent instance of {@code service}: the instances of the service. */
    Cap instance(ServiceKey service) {
        return Cap.of(
                NamingQuotas.INSTANCES_PER_SERVICE_LIMIT,
                quotas.instancesPerService(),
                "service " + service.groupedName() + " of namespace '" + service.namespace()
                        + "' has no room for another persistent instance");
    }
}
