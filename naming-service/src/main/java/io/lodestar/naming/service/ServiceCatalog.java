package io.lodestar.naming.service;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import io.lodestar.naming.NamingCounts;
import io.lodestar.naming.PageRequest;
import io.lodestar.naming.ServiceExistsException;
import io.lodestar.naming.ServiceNotEmptyException;
import io.lodestar.naming.ServiceNotFoundException;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import io.lodestar.naming.persistent.PersistentInstances;
import io.lodestar.naming.persistent.ServiceRecords;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The services: their stored definitions ({@link ServiceSpec}) and which services exist (see
 * {@link NamingService} for when one does). Writes complete once durable, on a store thread;
 * reads are this node's state.
 */
public final class ServiceCatalog {
    /** Attempts at deleting a service before giving up, each after a fresh emptiness check. */
    private static final int DELETE_ATTEMPTS = 8;

    private final ServiceRecords records;
    private final EphemeralRegistry ephemeral;
    private final PersistentInstances persistent;
    private final ReadModifyWrite serviceDeletes;
    private final AbsenceConfirmation absence;

    ServiceCatalog(
            KvStore store,
            ServiceRecords records,
            EphemeralRegistry ephemeral,
            PersistentInstances persistent,
            AbsenceConfirmation absence) {
        this.records = records;
        this.ephemeral = ephemeral;
        this.persistent = persistent;
        this.serviceDeletes = new ReadModifyWrite(store, DELETE_ATTEMPTS);
        this.absence = absence;
    }

    /**
     * Creates {@code service} with {@code spec} (stored). Fails with {@link ServiceExistsException}
     * if it exists, stored or through its instances. Completes once durable.
     */
    public CompletableFuture<Void> createService(ServiceKey service, ServiceSpec spec) {
        return records.update(service, current -> {
                    if (current.isPresent() || ephemeral.contains(service) || persistent.any(service)) {
                        throw new ServiceExistsException(service);
                    }
                    return spec;
                })
                .thenApply(s -> null);
    }

    /**
     * Sets the protect threshold and metadata of an existing service (Nacos's {@code PUT /service}),
     * keeping its clusters' settings; a service that existed only through its instances gets a
     * stored definition. Fails with {@link ServiceNotFoundException} if it does not exist.
     */
    public CompletableFuture<Void> updateService(
            ServiceKey service, double protectThreshold, Map<String, String> metadata) {
        ServiceSpec checked = new ServiceSpec(protectThreshold, metadata, Map.of());
        return absence.confirming(() -> records.update(
                        service,
                        current -> existingSpec(service, current)
                                .withProtectThreshold(checked.protectThreshold())
                                .withMetadata(checked.metadata()))
                .thenApply(s -> null));
    }

    /**
     * Sets how one cluster of an existing service is probed (Nacos's {@code PUT /cluster}); the
     * cluster need not have instances yet. Fails with {@link ServiceNotFoundException} if the
     * service does not exist.
     */
    public CompletableFuture<Void> updateCluster(ServiceKey service, String cluster, HealthCheckSettings settings) {
        NamingValidation.checkCluster("clusterName", cluster);
        return absence.confirming(() -> records.update(
                        service, current -> existingSpec(service, current).withCluster(cluster, settings))
                .thenApply(s -> null));
    }

    private ServiceSpec existingSpec(ServiceKey service, Optional<ServiceSpec> stored) {
        if (stored.isPresent()) {
            return stored.get();
        }
        if (ephemeral.contains(service) || persistent.any(service)) {
            return ServiceSpec.DEFAULT;
        }
        throw new ServiceNotFoundException(service);
    }

    /**
     * Deletes an empty service: its stored definition and its place in the ephemeral registry.
     * Fails with {@link ServiceNotEmptyException} while it has instances, with {@link
     * ServiceNotFoundException} if it does not exist. Completes once durable.
     *
     * <p>A persistent registration racing the delete may commit between the emptiness check and the
     * delete; the delete then notices the instance, stores the definition again and fails with
     * {@link ServiceNotEmptyException}, so no instance is left without its service for longer than
     * that moment (readers treat a service with instances as existing regardless).
     */
    public CompletableFuture<Void> deleteService(ServiceKey service) {
        return absence.confirming(() -> serviceDeletes
                .run("service " + service.groupedName(), () -> deleteAttempt(service))
                .thenCompose(deleted -> deleted.isEmpty() || !persistent.any(service)
                        ? CompletableFuture.<Void>completedFuture(null)
                        : records.putIfAbsent(
                                        service,
                                        deleted.get().spec(),
                                        deleted.get().defined())
                                .thenCompose(restored ->
                                        CompletableFuture.failedFuture(new ServiceNotEmptyException(service)))));
    }

    /** Deletes the stored definition, if any, guarded on its revision; answers with what it deleted. */
    private Step<Optional<ServiceRecords.StoredSpec>> deleteAttempt(ServiceKey service) {
        Optional<ServiceRecords.StoredSpec> stored = records.get(service);
        if (ephemeral.hasInstances(service) || persistent.any(service)) {
            throw new ServiceNotEmptyException(service);
        }
        EphemeralRegistry.RemoveOutcome removed = ephemeral.removeIfEmpty(service);
        if (removed == EphemeralRegistry.RemoveOutcome.NOT_EMPTY) {
            throw new ServiceNotEmptyException(service);
        }
        if (stored.isEmpty()) {
            if (removed != EphemeralRegistry.RemoveOutcome.REMOVED) {
                throw new ServiceNotFoundException(service);
            }
            return Step.answer(Optional.empty());
        }
        return Step.propose(ServiceRecords.deletion(service, stored.get().modRevision()), stored);
    }

    /** Whether {@link #service} would find the service, without reading its instances. */
    public boolean exists(ServiceKey service) {
        return ephemeral.contains(service) || records.get(service).isPresent() || persistent.any(service);
    }

    /**
     * The service with its spec, clusters and instance counts as this node sees it; empty if it
     * does not exist (no stored definition, unknown to the ephemeral registry, no persistent
     * instances).
     */
    public Optional<Service> service(ServiceKey service) {
        Optional<ServiceRecords.StoredSpec> stored = records.get(service);
        List<Instance> persistentList = persistent.list(service);
        if (stored.isEmpty() && persistentList.isEmpty() && !ephemeral.contains(service)) {
            return Optional.empty();
        }
        List<Instance> ephemeralList = ephemeral.instances(service);
        ServiceSpec spec = stored.map(ServiceRecords.StoredSpec::spec).orElse(ServiceSpec.DEFAULT);
        TreeMap<String, int[]> counts = new TreeMap<>();
        spec.clusters().keySet().forEach(c -> counts.put(c, new int[2]));
        int healthy = 0;
        for (List<Instance> list : List.of(persistentList, ephemeralList)) {
            for (Instance i : list) {
                int[] c = counts.computeIfAbsent(i.cluster(), k -> new int[2]);
                c[0]++;
                if (i.healthy()) {
                    c[1]++;
                    healthy++;
                }
            }
        }
        List<Service.ClusterSummary> clusters = new ArrayList<>();
        counts.forEach((name, c) -> clusters.add(new Service.ClusterSummary(name, spec.settingsFor(name), c[0], c[1])));
        return Optional.of(new Service(
                service, spec, stored.isPresent(), clusters, ephemeralList.size(), persistentList.size(), healthy));
    }

    /**
     * One page of the names (without group prefix, sorted) of the services in a group of a
     * namespace (blank: {@code public} and {@code DEFAULT_GROUP}), with the total count. Paged as
     * {@link PageRequest} says: {@code pageNo} from 1, any positive {@code pageSize} (so {@link
     * Integer#MAX_VALUE} lists them all), a page past the end is empty, and memory is bounded by
     * the group's service count.
     *
     * @throws InvalidRequestException naming {@code pageNo} or {@code pageSize} when it is below 1
     */
    public ServicePage listServices(String namespace, String group, int pageNo, int pageSize) {
        String ns = namespace == null || namespace.isBlank() ? ServiceKey.DEFAULT_NAMESPACE : namespace;
        String g = group == null || group.isBlank() ? ServiceKey.DEFAULT_GROUP : group;
        NamingValidation.checkNamespace(ns);
        NamingValidation.checkGroup(g);
        PageRequest page = new PageRequest(pageNo, pageSize);
        TreeSet<String> names = new TreeSet<>();
        records.inGroup(ns, g).forEach(s -> names.add(s.service()));
        for (ServiceKey s : ephemeral.services()) {
            if (s.namespace().equals(ns) && s.group().equals(g)) {
                names.add(s.service());
            }
        }
        return new ServicePage(names.size(), page.of(names));
    }

    /** Every service this node knows (stored, or holding instances of either kind); reads the stored ones. */
    public Set<ServiceKey> allServices() {
        Set<ServiceKey> services = new HashSet<>(records.all());
        services.addAll(ephemeral.services());
        for (PersistentInstances.Stored s : persistent.all()) {
            services.add(s.service());
        }
        return services;
    }

    /** Services and instances as this node sees them; reads the whole persistent keyspaces. */
    public NamingCounts counts() {
        Set<ServiceKey> services = new HashSet<>(records.all());
        services.addAll(ephemeral.services());
        return new NamingCounts(services.size(), ephemeral.instanceCount(), persistent.count());
    }

    /** The stored definition of {@code service}, or {@link ServiceSpec#DEFAULT} without one. */
    ServiceSpec specOf(ServiceKey service) {
        return records.get(service).map(ServiceRecords.StoredSpec::spec).orElse(ServiceSpec.DEFAULT);
    }
}
