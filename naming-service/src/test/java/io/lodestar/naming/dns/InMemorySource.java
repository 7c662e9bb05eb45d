package io.lodestar.naming.dns;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link DnsRecordSource} over a map, matching names ignoring case as the contract asks. */
final class InMemorySource implements DnsRecordSource {
    private final Map<String, List<DnsTarget>> services = new ConcurrentHashMap<>();

    InMemorySource put(String namespace, String group, String service, List<DnsTarget> instances) {
        services.put(key(namespace, group, service), new ArrayList<>(instances));
        return this;
    }

    private static String key(String namespace, String group, String service) {
        return (namespace + "\n" + group + "\n" + service).toLowerCase(Locale.ROOT);
    }

    @Override
    public Optional<List<DnsTarget>> instances(String namespace, String group, String service) {
        return Optional.ofNullable(services.get(key(namespace, group, service))).map(List::copyOf);
    }
}
