package io.lodestar.naming.service;

import io.lodestar.kv.KvStore;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.persistent.PersistentInstances;
import io.lodestar.naming.persistent.ServiceRecords;
import io.lodestar.naming.query.InstanceSelector;
import io.lodestar.naming.query.ListVersion;
import io.lodestar.naming.query.ServiceView;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/** Reads of instances as this node sees them (its registry and its store replica); never blocks. */
public final class InstanceQueries {
    private final Clock clock;
    private final KvStore store;
    private final EphemeralRegistry ephemeral;
    private final PersistentInstances persistent;
    private final ServiceRecords records;

    InstanceQueries(
            Clock clock,
            KvStore store,
            EphemeralRegistry ephemeral,
            PersistentInstances persistent,
            ServiceRecords records) {
        this.clock = clock;
        this.store = store;
        this.ephemeral = ephemeral;
        this.persistent = persistent;
        this.records = records;
    }

    /** The instance at the address, of either kind, as this node sees it. */
    public Optional<Instance> instance(ServiceKey service, String cluster, String ip, int port) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        Optional<Instance> e = ephemeral.instance(service, address);
        return e.isPresent() ? e : persistent.get(service, address);
    }

    /**
     * The instances a client should use, as Nacos computes them ({@link InstanceSelector}): enabled
     * instances of both kinds, of the named {@code clusters} (all when empty), each with its health
     * as the registry holds it, only healthy ones when {@code healthyOnly} — unless the service has
     * a stored definition and its protect threshold is reached ({@code healthy / listed <=
     * threshold}), in which case all are listed, reported healthy, and {@link
     * ServiceView#reachProtectionThreshold()} is set. {@link ServiceView#clusters()} echoes
     * {@code clusters} joined by {@code ,} in iteration order (pass a {@code LinkedHashSet} to keep the
     * request's order). An unknown service, or one whose instances all expired, answers an empty list.
     */
    public ServiceView list(ServiceKey service, Set<String> clusters, boolean healthyOnly) {
        Set<String> filter = clusters == null ? Set.of() : clusters;
        for (String c : filter) {
            NamingValidation.checkCluster("clusters", c);
        }
        List<Instance> all = new ArrayList<>(persistent.list(service));
        all.addAll(ephemeral.instances(service));
        OptionalDouble threshold = records.get(service)
                .filter(ServiceRecords.StoredSpec::defined)
                .map(s -> OptionalDouble.of(s.spec().protectThreshold()))
                .orElse(OptionalDouble.empty());
        return InstanceSelector.select(service, all, threshold, filter, healthyOnly, clock.millis());
    }

    /**
     * What {@link #list} of {@code service} is computed from: while it stays equal, so does the
     * list (but for its {@code lastRefTime}). Take it before listing.
     */
    public ListVersion listVersion(ServiceKey service) {
        return new ListVersion(store.revision(), ephemeral.version(service));
    }
}
