package io.lodestar.naming.service;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.NamingChangeListener;
import io.lodestar.naming.NamingCounts;
import io.lodestar.naming.NamingException;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.PersistentInstance;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.HeartbeatMonitor;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import io.lodestar.naming.query.ListVersion;
import io.lodestar.naming.query.ServiceView;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The service registry: everything the API layer needs of the naming domain.
 *
 * <p><b>Model.</b> namespace → service ({@link ServiceKey}) → cluster → instance ({@link Instance},
 * identified by {@link InstanceAddress}). <em>Ephemeral</em> instances live in this node's memory
 * ({@link EphemeralRegistry}), kept alive by heartbeats and expired by a {@link HeartbeatMonitor}.
 * <em>Persistent</em> instances and service definitions live in the replicated store
 * ({@link NamingKeyspaces}); a separate health checker probes them ({@link ProbedInstances}).
 *
 * <p><b>One kind per service.</b> A service holds ephemeral or persistent instances, not both
 * (Nacos 2.x's rule, which also implies that one ip:port is never both): registering an instance
 * of the other kind while the service holds any instance is {@link InvalidRequestException} on
 * {@code ephemeral}. Unlike Nacos 2.x the kind is not fixed for the service's lifetime: once empty,
 * a service accepts either kind again (so a service created through the API takes whatever its
 * clients register). The check reads this node's state; two registrations of different kinds racing
 * on different nodes could both land, and are then both listed.
 *
 * <p><b>Services</b> exist when they have a stored definition (created or updated through the API,
 * or implied by a persistent registration, as Nacos does) or when the ephemeral registry knows them
 * (from a first ephemeral registration until they have been empty for {@link
 * NamingOptions#emptyServiceTtl()}). A service without a stored definition has {@link
 * ServiceSpec#DEFAULT}.
 *
 * <p><b>Errors.</b> Malformed arguments are {@link InvalidRequestException} (naming the Nacos
 * parameter), thrown by the call. Refusals that depend on the current state ({@link NamingException}
 * subtypes, and the one-kind rule) complete the returned future exceptionally, or are thrown by
 * methods that return no future. Store failures complete futures as {@link KvStore#write} does.
 *
 * <p><b>Threading.</b> Every method is thread-safe and never blocks on the network. Ephemeral
 * changes are done when the call returns (their futures are already complete); persistent ones when
 * the future completes (durable on a majority and applied here; it completes on a store thread,
 * dependent stages must not block). Reads are this node's state: its registry and its store replica;
 * a "not found" refusal of an edit is confirmed against the leader first.
 * Change notifications go through {@link #subscribe}.
 *
 * <p><b>Parts.</b> This class is a facade over the parts {@link NamingModule} builds: {@link
 * InstanceWrites}, {@link Heartbeats}, {@link ServiceCatalog}, {@link InstanceQueries} and {@link
 * ProbedInstances}; each method's contract is in its part's doc comment.
 */
public final class NamingService implements AutoCloseable {
    private final NamingModule module;

    /** A registry with the default options and the system clock, its heartbeat monitor running. */
    public NamingService(KvStore store) {
        this(store, NamingOptions.DEFAULT, Clock.systemUTC());
    }

    /**
     * A registry on {@code store} (opened with {@link NamingKeyspaces#ALL}); {@code clock} times
     * heartbeats and expiry. Subscribes to the store's change feed and starts the heartbeat monitor;
     * {@link #close()} stops both (the store stays open: it is the caller's).
     */
    public NamingService(KvStore store, NamingOptions options, Clock clock) {
        this(store, options, clock, true);
    }

    /**
     * As {@link #NamingService(KvStore, NamingOptions, Clock)}; without {@code scheduleHeartbeatChecks}
     * expiry runs only through {@link #checkHeartbeatsNow()}, so tests decide when it happens.
     */
    NamingService(KvStore store, NamingOptions options, Clock clock, boolean scheduleHeartbeatChecks) {
        this.module = new NamingModule(store, options, clock, scheduleHeartbeatChecks);
    }

    // instance writes: see InstanceWrites

    /** {@link InstanceWrites#register}. */
    public CompletableFuture<Void> register(ServiceKey service, Instance instance) {
        return module.writes.register(service, instance);
    }

    /** {@link InstanceWrites#registerHeld}. */
    public CompletableFuture<Void> registerHeld(ServiceKey service, Instance instance) {
        return module.writes.registerHeld(service, instance);
    }

    /**
     * Throws {@link io.lodestar.error.LimitExceededException} naming the quota if registering every
     * one of {@code instances} (ephemeral) in {@code service} would pass an ephemeral quota on this
     * node's copy of the registry: for a batch to be refused whole before any of it is written. Each
     * registration is still checked by the service's owner.
     */
    public void checkEphemeralRoom(ServiceKey service, List<Instance> instances) {
        module.ephemeralQuotas.checkRoomFor(service, instances);
    }

    /** {@link InstanceWrites#deregister}. */
    public CompletableFuture<Void> deregister(
            ServiceKey service, String cluster, String ip, int port, boolean ephemeral) {
        return module.writes.deregister(service, cluster, ip, port, ephemeral);
    }

    /** {@link InstanceWrites#removeAny}. */
    public CompletableFuture<Void> removeAny(ServiceKey service, InstanceAddress address) {
        return module.writes.removeAny(service, address);
    }

    /** {@link InstanceWrites#releaseHeld}. */
    public CompletableFuture<Void> releaseHeld(ServiceKey service, InstanceAddress address) {
        return module.writes.releaseHeld(service, address);
    }

    /**
     * The member (its Raft address) holding each of the service's ephemeral instances for a client's
     * connection, as this node's copy of the registry says; an ephemeral instance not listed is kept
     * alive by its client's heartbeats.
     */
    public Map<InstanceAddress, String> holders(ServiceKey service) {
        return module.ephemeral.holders(service);
    }

    /**
     * The services of each of {@code namespaces}: the stored definitions, from the store's counters, plus
     * the services only ephemeral instances make (in this node's copy of the registry, each checked
     * for a stored definition by one point read). Never reads a namespace's definitions one by one.
     */
    public Map<String, Long> serviceCounts(java.util.Collection<String> namespaces) {
        Map<String, Long> counts = new java.util.HashMap<>();
        for (String namespace : namespaces) {
            counts.put(namespace, module.records.count(namespace));
        }
        // one pass over the registry's services for every namespace asked
        for (ServiceKey s : module.ephemeral.services()) {
            if (counts.containsKey(s.namespace()) && module.ephemeral.hasInstances(s) && !module.records.stored(s)) {
                counts.merge(s.namespace(), 1L, Long::sum);
            }
        }
        return counts;
    }

    /**
     * Every instance of the service this node knows, enabled or not, healthy or not: the stored
     * persistent ones, then the ephemeral ones of this node's copy of the registry.
     */
    public List<Instance> allInstances(ServiceKey service) {
        List<Instance> all = new java.util.ArrayList<>(module.persistent.list(service));
        all.addAll(module.ephemeral.instances(service));
        return all;
    }

    /** The last Distro checksum comparison with each peer, by its Raft address. */
    public Map<String, io.lodestar.naming.distro.Distro.PeerVerify> distroVerifications() {
        return module.distro.lastVerify();
    }

    /** {@link InstanceWrites#heldHere}. */
    public Map<ServiceKey, Set<InstanceAddress>> heldHere() {
        return module.writes.heldHere();
    }

    /** {@link InstanceWrites#update}. */
    public CompletableFuture<Void> update(ServiceKey service, Instance instance) {
        return module.writes.update(service, instance);
    }

    /** {@link InstanceWrites#patch}. */
    public CompletableFuture<Void> patch(ServiceKey service, String cluster, String ip, int port, InstancePatch patch) {
        return module.writes.patch(service, cluster, ip, port, patch);
    }

    // heartbeats: see Heartbeats

    /** {@link Heartbeats#beat}. */
    public BeatResult beat(ServiceKey service, String cluster, String ip, int port, Optional<BeatInfo> beat) {
        return module.heartbeats.beat(service, cluster, ip, port, beat);
    }

    /** {@link Heartbeats#beatAsync}. */
    public CompletableFuture<BeatResult> beatAsync(
            ServiceKey service, String cluster, String ip, int port, Optional<BeatInfo> beat) {
        return module.heartbeats.beatAsync(service, cluster, ip, port, beat);
    }

    /** {@link Heartbeats#checkNow}. */
    public void checkHeartbeatsNow() {
        module.heartbeats.checkNow();
    }

    // instance reads: see InstanceQueries

    /** {@link InstanceQueries#instance}. */
    public Optional<Instance> instance(ServiceKey service, String cluster, String ip, int port) {
        return module.queries.instance(service, cluster, ip, port);
    }

    /** {@link InstanceQueries#list}. */
    public ServiceView list(ServiceKey service, Set<String> clusters, boolean healthyOnly) {
        return module.queries.list(service, clusters, healthyOnly);
    }

    /** {@link InstanceQueries#listVersion}. */
    public ListVersion listVersion(ServiceKey service) {
        return module.queries.listVersion(service);
    }

    // health of persistent instances: see ProbedInstances

    /** {@link ProbedInstances#setHealth}. */
    public CompletableFuture<Void> setHealth(ServiceKey service, String cluster, String ip, int port, boolean healthy) {
        return module.probed.setHealth(service, cluster, ip, port, healthy);
    }

    /** {@link ProbedInstances#setPersistentHealth}. */
    public CompletableFuture<Boolean> setPersistentHealth(
            ServiceKey service, String cluster, String ip, int port, boolean healthy) {
        return module.probed.setPersistentHealth(service, cluster, ip, port, healthy);
    }

    /** {@link ProbedInstances#persistentVersion}. */
    public long persistentVersion() {
        return module.probed.persistentVersion();
    }

    /** {@link ProbedInstances#persistentInstances}. */
    public List<PersistentInstance> persistentInstances() {
        return module.probed.persistentInstances();
    }

    // services: see ServiceCatalog

    /** {@link ServiceCatalog#createService}. */
    public CompletableFuture<Void> createService(ServiceKey service, ServiceSpec spec) {
        return module.catalog.createService(service, spec);
    }

    /** {@link ServiceCatalog#updateService}. */
    public CompletableFuture<Void> updateService(
            ServiceKey service, double protectThreshold, Map<String, String> metadata) {
        return module.catalog.updateService(service, protectThreshold, metadata);
    }

    /** {@link ServiceCatalog#updateCluster}. */
    public CompletableFuture<Void> updateCluster(ServiceKey service, String cluster, HealthCheckSettings settings) {
        return module.catalog.updateCluster(service, cluster, settings);
    }

    /** {@link ServiceCatalog#deleteService}. */
    public CompletableFuture<Void> deleteService(ServiceKey service) {
        return module.catalog.deleteService(service);
    }

    /** {@link ServiceCatalog#exists}. */
    public boolean exists(ServiceKey service) {
        return module.catalog.exists(service);
    }

    /** {@link ServiceCatalog#service}. */
    public Optional<Service> service(ServiceKey service) {
        return module.catalog.service(service);
    }

    /** {@link ServiceCatalog#listServices}. */
    public ServicePage listServices(String namespace, String group, int pageNo, int pageSize) {
        return module.catalog.listServices(namespace, group, pageNo, pageSize);
    }

    /** {@link ServiceCatalog#allServices}. */
    public Set<ServiceKey> allServices() {
        return module.catalog.allServices();
    }

    /** {@link ServiceCatalog#counts}. */
    public NamingCounts counts() {
        return module.catalog.counts();
    }

    // notifications and lifecycle

    /**
     * Subscribes {@code listener} to changes of every service (see {@link NamingChangeListener} for
     * when and on which thread it is called); close the result to unsubscribe.
     */
    public AutoCloseable subscribe(NamingChangeListener listener) {
        return module.notifier().subscribe(listener);
    }

    /** True once this node holds the ephemeral instances of the cluster (see {@link Distro#loaded()}). */
    public boolean ephemeralLoaded() {
        return module.distro().loaded();
    }

    /** Stops the heartbeat monitor, Distro, the change-feed subscription and notifications. The store stays open. */
    @Override
    public void close() {
        module.close();
    }
}
