package io.lodestar.naming.dns;

import io.lodestar.naming.NamingService;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
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
    private final Map<String, Set<ServiceKey>> byLowerName = new ConcurrentHashMap<>();
    private final AutoCloseable subscription;

    public RegistryDnsSource(NamingService naming) {
        this.naming = naming;
        this.subscription = naming.subscribe(this::refresh); // subscribed first: no change slips between
        naming.allServices().forEach(this::index);
    }

    private void refresh(ServiceKey service) {
        if (naming.exists(service)) {
            index(service);
        } else {
            byLowerName.computeIfPresent(lower(service.namespace(), service.group(), service.service()), (k, set) -> {
                set.remove(service);
                return set.isEmpty() ? null : set;
            });
        }
    }

    private void index(ServiceKey service) {
        byLowerName
                .computeIfAbsent(
                        lower(service.namespace(), service.group(), service.service()),
                        k -> ConcurrentHashMap.newKeySet())
                .add(service);
    }

    private static String lower(String namespace, String group, String service) {
        return (namespace + '/' + group + '/' + service).toLowerCase(Locale.ROOT);
    }

    @Override
    public Optional<List<DnsTarget>> instances(String namespace, String group, String service) {
        Set<ServiceKey> services = byLowerName.get(lower(namespace, group, service));
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
