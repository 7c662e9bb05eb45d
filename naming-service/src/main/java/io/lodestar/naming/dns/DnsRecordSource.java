package io.lodestar.naming.dns;

import java.util.List;
import java.util.Optional;

/**
 * Where the DNS server reads services from: implemented by the registry.
 *
 * <p>Called on the DNS server's I/O threads, once per query, possibly from several threads at
 * once: must be thread-safe, quick and non-blocking (read this node's in-memory view; no store
 * scans, no remote calls). An exception thrown here is answered SERVFAIL.
 */
@FunctionalInterface
public interface DnsRecordSource {

    /**
     * All instances of the service, with their health and enabled flags (the server picks the
     * ones to serve), or empty if this node knows no such service.
     *
     * <p>The names are the query's labels as sent. DNS labels are case-insensitive and resolvers
     * may send them in any mix of case, so match all three ignoring ASCII case; services whose
     * names differ only in case cannot be told apart over DNS, so return the instances of all
     * of them. A service that exists with no instances is a present, empty list.
     */
    Optional<List<DnsTarget>> instances(String namespace, String group, String service);
}
