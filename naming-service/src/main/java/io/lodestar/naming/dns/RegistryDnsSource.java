package io.lodestar.naming.dns;

import io.lodestar.naming.SmallSets;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.SharedNames;
import io.lodestar.naming.service.NamingService;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The DNS server's view of the registry. DNS names are case-insensitive (and some resolvers
 * randomise the case of every query), registry names are not: an index from the lower-cased
 * {@code namespace/group/service} to the services so named is kept current from the registry's
 * change notifications, and a query answers the instances of all of them, as a client of the
 * registry's {@code /instance/list} would get them (enabled ones; the protect threshold applied).
 */
public final class RegistryDnsSource implements DnsRecordSource, AutoCloseable {
    private final NamingService naming;
    /**
     * Per lower-cased name, the services so named. Small because there is one entry per service:
     * the lower-cased namespace and group are shared strings, a service name already in lower case
     * is the service's own string, and a set (immutable, replaced on change) is almost always of one.
     */
    private final Map<LowerName, Set<ServiceKey>> byLowerName = new ConcurrentHashMap<>();

    private final AutoCloseable subscription;
    private final DnsNamespaces served;

    /** The services of the namespaces in {@code served}; the others' are not indexed, and not answered. */
    public RegistryDnsSource(NamingService naming, DnsNamespaces served) {
        this.naming = naming;
        this.served = served;
        this.subscription = naming.subscribe(this::refresh); // subscribed first: no change slips between
        naming.allServices().forEach(this::index);
    }

    private void refresh(ServiceKey service) {
        if (!served.serves(service.namespace())) {
            return;
        }
        if (naming.exists(service)) {
            index(service);
        } else {
            byLowerName.computeIfPresent(LowerName.of(service), (k, set) -> {
                Set<ServiceKey> rest = SmallSets.without(set, service);
                return rest.isEmpty() ? null : rest;
            });
        }
    }

    private void index(ServiceKey service) {
        if (!served.serves(service.namespace())) {
            return;
        }
        byLowerName.merge(LowerName.of(service), Set.of(service), (set, one) -> SmallSets.with(set, service));
    }

    private record LowerName(String namespace, String group, String service) {
        static LowerName of(ServiceKey key) {
            return new LowerName(
                    SharedNames.canonical(key.namespace().toLowerCase(Locale.ROOT)),
                    SharedNames.canonical(key.group().toLowerCase(Locale.ROOT)),
                    key.service().toLowerCase(Locale.ROOT));
        }

        static LowerName of(String namespace, String group, String service) {
            return new LowerName(
                    namespace.toLowerCase(Locale.ROOT),
                    group.toLowerCase(Locale.ROOT),
                    service.toLowerCase(Locale.ROOT));
        }
    }

    @Override
    public Optional<List<DnsTarget>> instances(String namespace, String group, String service) {
        Set<ServiceKey> services = byLowerName.get(LowerName.of(namespace, group, service));
        if (services == null || services.isEmpty()) {
            return Optional.empty();
        }
        List<DnsTarget> out = new ArrayList<>();
        for (ServiceKey key : services) {
            for (Instance i : naming.list(key, Set.of(), false).hosts()) {
                out.add(new DnsTarget(i.ip(), i.port(), i.weight(), i.healthy(), i.enabled()));
            }
        }
        return Optional.of(out);
    }

    @Override
    public void close() throws Exception {
        subscription.close();
    }
}
