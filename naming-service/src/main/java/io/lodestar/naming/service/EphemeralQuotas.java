package io.lodestar.naming.service;

import io.lodestar.error.LimitExceededException;
import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The ephemeral quotas, checked where an ephemeral registration is applied: by the service's owner
 * (or whoever applies in its stead), against its own registry. Ephemeral instances are not in the
 * store, so neither are their counts: the check reads the registry, and two registrations applied
 * at once may pass a quota by a few. Replication from peers is never checked (the peer's owner
 * decided).
 */
final class EphemeralQuotas {
    private final EphemeralRegistry ephemeral;
    private final NamingQuotas quotas;

    EphemeralQuotas(EphemeralRegistry ephemeral, NamingQuotas quotas) {
        this.ephemeral = ephemeral;
        this.quotas = quotas;
    }

    /**
     * Throws {@link LimitExceededException} naming the quota if registering {@code instances} would
     * take it past its value; those at an address already registered replace it and count nothing.
     */
    void checkRoomFor(ServiceKey service, List<Instance> instances) {
        long added = instances.stream()
                .map(Instance::address)
                .distinct()
                .filter(a -> ephemeral.instance(service, a).isEmpty())
                .count();
        if (added == 0) {
            return;
        }
        String more = added == 1 ? "another ephemeral instance" : added + " more ephemeral instances";
        if (ephemeral.instances(service).size() + added > quotas.ephemeralPerService()) {
            throw refused(
                    NamingQuotas.EPHEMERAL_PER_SERVICE_LIMIT,
                    quotas.ephemeralPerService(),
                    "service " + service.groupedName() + " of namespace '" + service.namespace() + "' has no room for "
                            + more);
        }
        if (ephemeral.instanceCount() + added > quotas.ephemeralInstances()) {
            throw refused(
                    NamingQuotas.EPHEMERAL_INSTANCES_LIMIT,
                    quotas.ephemeralInstances(),
                    "the registry has no room for " + more);
        }
    }

    private LimitExceededException refused(String limit, long max, String what) {
        quotas.refused().accept(limit);
        return LimitExceededException.tooMany(limit, max, what);
    }
}
