package io.lodestar.naming.service;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.rmw.ReadModifyWrite;
import io.lodestar.kv.rmw.Step;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.HealthNotSettableException;
import io.lodestar.naming.InstanceHeldException;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.NamingChangeListener;
import io.lodestar.naming.NamingCounts;
import io.lodestar.naming.NamingException;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.PageRequest;
import io.lodestar.naming.PersistentInstance;
import io.lodestar.naming.ServiceExistsException;
import io.lodestar.naming.ServiceNotEmptyException;
import io.lodestar.naming.ServiceNotFoundException;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.distro.DistroRing;
import io.lodestar.naming.distro.EphemeralWrite;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.HeartbeatMonitor;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.ephemeral.Outcome;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.NamingValidation;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import io.lodestar.naming.notify.ChangeNotifier;
import io.lodestar.naming.persistent.PersistentFeed;
import io.lodestar.naming.persistent.PersistentInstances;
import io.lodestar.naming.persistent.ServiceRecords;
import io.lodestar.naming.query.InstanceSelector;
import io.lodestar.naming.query.ListVersion;
import io.lodestar.naming.query.ServiceView;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service registry: everything the API layer needs of the naming domain.
 *
 * <p><b>Model.</b> namespace → service ({@link ServiceKey}) → cluster → instance ({@link Instance},
 * identified by {@link InstanceAddress}). <em>Ephemeral</em> instances live in this node's memory
 * ({@link EphemeralRegistry}), kept alive by heartbeats and expired by a {@link HeartbeatMonitor}.
 * <em>Persistent</em> instances and service definitions live in the replicated store
 * ({@link NamingKeyspaces}); a separate health checker probes them ({@link #persistentInstances()},
 * {@link #setPersistentHealth}).
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
 */
public final class NamingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamingService.class);
    /** Change-feed events buffered for the registry before it falls back to a resync. */
    static final int FEED_CAPACITY = 65_536;
    /** Attempts at deleting a service before giving up, each after a fresh emptiness check. */
    private static final int DELETE_ATTEMPTS = 8;

    private final Clock clock;
    private final KvStore store;
    private final ChangeNotifier notifier = new ChangeNotifier();
    private final EphemeralRegistry ephemeral;
    private final HeartbeatMonitor monitor;
    private final Distro distro;
    private final PersistentInstances persistent;
    private final ServiceRecords records;
    private final ReadModifyWrite serviceDeletes;
    private final PersistentFeed persistentFeed;
    private final AutoCloseable feedSubscription;

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
        this.clock = clock;
        this.store = store;
        this.ephemeral = new EphemeralRegistry(clock, options.expiryRules(), this::ephemeralChanged);
        this.persistent = new PersistentInstances(store);
        this.records = new ServiceRecords(store);
        this.serviceDeletes = new ReadModifyWrite(store, DELETE_ATTEMPTS);
        this.distro = new Distro(
                        store.peers(), new DistroRing(store::cluster), ephemeral, this::applyLocally, options.distro())
                .start();
        this.monitor = new HeartbeatMonitor(ephemeral, distro::responsible, distro::live);
        this.persistentFeed = new PersistentFeed(store, notifier::changed);
        this.feedSubscription = store.subscribe(persistentFeed, FEED_CAPACITY);
        if (scheduleHeartbeatChecks) {
            monitor.start();
        }
    }

    // ---------------------------------------------------------------- instances

    /**
     * Registers {@code instance} in {@code service}, replacing any instance at the same address
     * (cluster, ip, port) of the same kind, and creating the service if needed (a persistent
     * registration also stores its default definition). An instance without an id gets Nacos's
     * default one. An ephemeral registration counts as a beat; registering a persistent instance
     * again in a probed cluster keeps the health its probe found. Completes at once for an ephemeral
     * instance, once durable for a persistent one; fails with {@link InvalidRequestException} on
     * {@code ephemeral} if the service holds instances of the other kind.
     */
    public CompletableFuture<Void> register(ServiceKey service, Instance instance) {
        Instance named = instance.withDefaultId(service);
        if (!named.ephemeral()) {
            // in a probed cluster the probe owns health: registering again must not revive a dead instance
            boolean probed = specOf(service).settingsFor(named.cluster()).type() != CheckerType.NONE;
            return persistent.put(
                    service,
                    named,
                    () -> refuseMixing(service, named),
                    (old, given) -> probed ? given.withHealthy(old.healthy()) : given);
        }
        return distro.write(new EphemeralWrite.Register(service, named, null)).thenApply(r -> null);
    }

    /**
     * Registers an ephemeral {@code instance} that lives as long as its client's connection to this
     * node (a gRPC client): this node is its holder, and it needs no beats while this node is a
     * live member. The holder removes it when the connection closes ({@link #releaseHeld}); if the
     * holder dies, the survivors remove it after its beat timeout, unless its client registered it
     * again through another node (the new holder).
     */
    public CompletableFuture<Void> registerHeld(ServiceKey service, Instance instance) {
        if (!instance.ephemeral()) {
            throw new IllegalArgumentException("only an ephemeral instance is held for a connection");
        }
        return distro.write(new EphemeralWrite.Register(service, instance.withDefaultId(service), distro.self()))
                .thenApply(r -> null);
    }

    private void refuseMixing(ServiceKey service, Instance instance) {
        InstanceAddress address = instance.address();
        if (instance.ephemeral()) {
            if (persistent.get(service, address).isPresent()) {
                throw new InvalidRequestException(
                        "ephemeral",
                        address.hostPort() + " in cluster " + address.cluster() + " is a persistent instance of "
                                + service.groupedName() + "; deregister it first");
            }
            if (persistent.any(service)) {
                throw new InvalidRequestException(
                        "ephemeral",
                        "service " + service.groupedName()
                                + " holds persistent instances; a service holds ephemeral or persistent instances, not both");
            }
        } else {
            if (ephemeral.instance(service, address).isPresent()) {
                throw new InvalidRequestException(
                        "ephemeral",
                        address.hostPort() + " in cluster " + address.cluster() + " is an ephemeral instance of "
                                + service.groupedName() + "; deregister it first");
            }
            if (ephemeral.hasInstances(service)) {
                throw new InvalidRequestException(
                        "ephemeral",
                        "service " + service.groupedName()
                                + " holds ephemeral instances; a service holds ephemeral or persistent instances, not both");
            }
        }
    }

    /**
     * Removes the instance at {@code cluster}/{@code ip}:{@code port}, whichever kind it is (one
     * address is never both), as a deregistration over HTTP does: an ephemeral instance that a gRPC
     * client's connection holds is not this caller's to remove ({@link InstanceHeldException}, and
     * a registration held meanwhile on the owner is left alone too). Completes normally when it is
     * already gone. {@code ephemeral} is the kind the caller believes: with {@code false} the
     * persistent delete is proposed even if this node's replica has not seen the instance yet (it
     * may lag the leader). Completes at once for an ephemeral instance, once durable for a
     * persistent one. The service itself stays.
     */
    public CompletableFuture<Void> deregister(
            ServiceKey service, String cluster, String ip, int port, boolean ephemeral) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        if (this.ephemeral.holder(service, address).isPresent()) {
            throw new InstanceHeldException(service, address);
        }
        return remove(service, address, ephemeral, Mutation.Deregister.UNHELD);
    }

    /**
     * Removes the instance at {@code address} whoever holds it: the admin's removal, for an
     * instance whose client cannot be reached. A connection that still holds it registers it again
     * (its node's reconcile pass).
     */
    public CompletableFuture<Void> removeAny(ServiceKey service, InstanceAddress address) {
        return remove(service, address, true, null);
    }

    private CompletableFuture<Void> remove(
            ServiceKey service, InstanceAddress address, boolean ephemeral, String ifHeldBy) {
        if (this.ephemeral.instance(service, address).isPresent()) {
            return distro.write(new EphemeralWrite.Deregister(service, address, ifHeldBy))
                    .thenApply(r -> null);
        }
        if (!ephemeral || persistent.get(service, address).isPresent()) {
            return persistent.remove(service, address);
        }
        // not on this replica: the owner may have it (a registration still on its way here)
        return distro.write(new EphemeralWrite.Deregister(service, address, ifHeldBy))
                .thenApply(r -> null);
    }

    /**
     * Lets go of an ephemeral instance this node holds ({@link #registerHeld}): removes it only
     * while this node is still its holder, so that a client that registered it again through
     * another node keeps it. Completes at once.
     */
    public CompletableFuture<Void> releaseHeld(ServiceKey service, InstanceAddress address) {
        return distro.write(new EphemeralWrite.Deregister(service, address, distro.self()))
                .thenApply(r -> null);
    }

    /** The instances this node holds as far as its replica knows, by service. */
    public Map<ServiceKey, Set<InstanceAddress>> heldHere() {
        return ephemeral.heldBy(distro.self());
    }

    /**
     * Edits an existing instance as Nacos's {@code PUT /instance} does: {@code instance}'s weight and
     * enabled flag replace the old ones, its metadata is merged into the old (its keys win), and its
     * healthy flag is taken only for a persistent instance whose cluster checker is {@link
     * CheckerType#NONE} (otherwise heartbeats or probes own health). The address is taken from
     * {@code instance}; its id and kind are kept as they were ({@code instance.ephemeral()} is
     * ignored: an edit never moves an instance between kinds). Fails with {@link
     * InstanceNotFoundException} if there is no instance at the address.
     */
    public CompletableFuture<Void> update(ServiceKey service, Instance instance) {
        InstanceAddress address = instance.address();
        if (ephemeral.instance(service, address).isPresent()) {
            return distro.write(new EphemeralWrite.Update(service, instance)).thenApply(r -> null);
        }
        return confirmingAbsence(() -> {
            boolean manualHealth =
                    specOf(service).settingsFor(address.cluster()).type() == CheckerType.NONE;
            return persistent
                    .modify(service, address, old -> merge(old, instance, manualHealth))
                    .thenCompose(edit -> edit.isPresent()
                            ? CompletableFuture.<Void>completedFuture(null)
                            : CompletableFuture.failedFuture(new InstanceNotFoundException(service, address)));
        });
    }

    private static Instance merge(Instance old, Instance given, boolean takeHealth) {
        Map<String, String> metadata = new LinkedHashMap<>(old.metadata());
        metadata.putAll(given.metadata());
        return old.withWeight(given.weight())
                .withEnabled(given.enabled())
                .withMetadata(metadata)
                .withHealthy(takeHealth ? given.healthy() : old.healthy());
    }

    /**
     * Edits only the fields {@code patch} gives (Nacos's {@code PATCH /instance}; metadata, when
     * given, is replaced whole). Fails with {@link InstanceNotFoundException} if there is no
     * instance at the address.
     */
    public CompletableFuture<Void> patch(ServiceKey service, String cluster, String ip, int port, InstancePatch patch) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        if (ephemeral.instance(service, address).isPresent()) {
            return distro.write(new EphemeralWrite.Patch(service, address, patch))
                    .thenApply(r -> null);
        }
        return confirmingAbsence(() -> persistent
                .modify(service, address, patch::applyTo)
                .thenCompose(edit -> edit.isPresent()
                        ? CompletableFuture.<Void>completedFuture(null)
                        : CompletableFuture.failedFuture(new InstanceNotFoundException(service, address))));
    }

    private CompletableFuture<BeatResult> editEphemeral(
            ServiceKey service, InstanceAddress address, UnaryOperator<Instance> change) {
        try {
            if (ephemeral.apply(service, new Mutation.Modify(address, change)) == Outcome.NOT_FOUND) {
                // expired or deregistered since we looked
                return CompletableFuture.failedFuture(new InstanceNotFoundException(service, address));
            }
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The instance at the address, of either kind, as this node sees it. */
    public Optional<Instance> instance(ServiceKey service, String cluster, String ip, int port) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        Optional<Instance> e = ephemeral.instance(service, address);
        return e.isPresent() ? e : persistent.get(service, address);
    }

    /**
     * A heartbeat for the instance at the address. A known ephemeral instance is refreshed (and is
     * healthy again); a known persistent instance is left alone (probes own its health) — both
     * answer {@link BeatResult.Status#OK} with the instance's beat interval. An unknown instance is
     * registered again from {@code beat} when the client sent a full beat (as Nacos does: ephemeral,
     * healthy, enabled) and answers OK; without one (a light beat) it answers {@link
     * BeatResult.Status#UNKNOWN}, telling the client to register again.
     *
     * <p>A full beat must agree with the address and service it is sent for ({@link
     * InvalidRequestException} on {@code beat} otherwise); re-registering is refused like {@link
     * #register} when the service holds persistent instances ({@link InvalidRequestException} on
     * {@code ephemeral}, thrown).
     */
    public BeatResult beat(ServiceKey service, String cluster, String ip, int port, Optional<BeatInfo> beat) {
        try {
            return beatAsync(service, cluster, ip, port, beat).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * As {@link #beat}, completing when the service's owner took the beat (a beat for a service
     * another member owns is forwarded to it). {@link InvalidRequestException} fails the future.
     */
    public CompletableFuture<BeatResult> beatAsync(
            ServiceKey service, String cluster, String ip, int port, Optional<BeatInfo> beat) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        try {
            beat.ifPresent(b -> checkBeatAgrees(service, address, b));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        // a service holds one kind of instance: one with ephemeral instances needs no store read
        Optional<Instance> stored =
                ephemeral.hasInstances(service) ? Optional.empty() : persistent.get(service, address);
        if (stored.isPresent()) {
            return CompletableFuture.completedFuture(new BeatResult(
                    BeatResult.Status.OK, stored.get().heartbeat().intervalMs()));
        }
        return distro.write(new EphemeralWrite.Beat(service, address, beat));
    }

    private BeatResult beatLocally(ServiceKey service, InstanceAddress address, Optional<BeatInfo> beat) {
        if (ephemeral.apply(service, new Mutation.Beat(address)) != Outcome.NOT_FOUND) {
            Optional<Instance> beaten = ephemeral.instance(service, address);
            long interval =
                    beaten.isPresent() ? beaten.get().heartbeat().intervalMs() : HeartbeatSettings.DEFAULT_INTERVAL_MS;
            return new BeatResult(BeatResult.Status.OK, interval);
        }
        if (beat.isEmpty()) {
            return new BeatResult(BeatResult.Status.UNKNOWN, HeartbeatSettings.DEFAULT_INTERVAL_MS);
        }
        Instance again = beat.get().toInstance().withCluster(address.cluster());
        refuseMixing(service, again);
        ephemeral.apply(service, new Mutation.Register(again));
        LOG.debug("registered {} in {} again from its heartbeat", address, service);
        return new BeatResult(BeatResult.Status.OK, again.heartbeat().intervalMs());
    }

    /** Applies an ephemeral write to this node's registry (as its service's owner, or in the owner's stead). */
    private CompletableFuture<BeatResult> applyLocally(EphemeralWrite write) {
        try {
            ServiceKey service = write.service();
            if (write instanceof EphemeralWrite.Register r) {
                refuseMixing(service, r.instance());
                ephemeral.apply(service, new Mutation.Register(r.instance().withoutDefaultId(service), r.holder()));
            } else if (write instanceof EphemeralWrite.Deregister d) {
                ephemeral.apply(service, new Mutation.Deregister(d.address(), d.ifHeldBy()));
            } else if (write instanceof EphemeralWrite.Update u) {
                return editEphemeral(service, u.instance().address(), old -> merge(old, u.instance(), false));
            } else if (write instanceof EphemeralWrite.Patch p) {
                return editEphemeral(service, p.address(), p.patch()::applyTo);
            } else if (write instanceof EphemeralWrite.Beat b) {
                return CompletableFuture.completedFuture(beatLocally(service, b.address(), b.beat()));
            }
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void ephemeralChanged(ServiceKey service) {
        notifier.changed(service);
        if (distro != null) { // null only while the constructor runs, before any mutation
            distro.changed(service);
        }
    }

    /** True once this node holds the ephemeral instances of the cluster (see {@link Distro#loaded()}). */
    public boolean ephemeralLoaded() {
        return distro.loaded();
    }

    private static void checkBeatAgrees(ServiceKey service, InstanceAddress address, BeatInfo beat) {
        String beatCluster =
                beat.cluster() == null || beat.cluster().isBlank() ? Instance.DEFAULT_CLUSTER : beat.cluster();
        if (!address.ip().equals(beat.ip())
                || address.port() != beat.port()
                || !address.cluster().equals(beatCluster)) {
            throw new InvalidRequestException(
                    "beat",
                    "the beat is for " + beatCluster + "/" + beat.ip() + ":" + beat.port() + ", not " + address);
        }
        if (beat.serviceName() != null && !beat.serviceName().isBlank()) {
            ServiceKey named = ServiceKey.of(service.namespace(), null, beat.serviceName());
            if (!named.equals(service)) {
                throw new InvalidRequestException(
                        "beat", "the beat is for service " + beat.serviceName() + ", not " + service.groupedName());
            }
        }
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

    // ---------------------------------------------------------------- health

    /**
     * Sets a persistent instance's health by hand ({@code PUT /health/instance}): allowed only when
     * its cluster's checker is {@link CheckerType#NONE}. Fails with {@link HealthNotSettableException}
     * for an ephemeral instance or a probed cluster, with {@link InstanceNotFoundException} for an
     * unknown one; completes once durable (at once when the flag already had that value).
     */
    public CompletableFuture<Void> setHealth(ServiceKey service, String cluster, String ip, int port, boolean healthy) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        if (ephemeral.instance(service, address).isPresent()) {
            return CompletableFuture.failedFuture(new HealthNotSettableException(
                    service, address, "an ephemeral instance is healthy while it sends heartbeats"));
        }
        return confirmingAbsence(() -> {
            if (persistent.get(service, address).isEmpty()) {
                return CompletableFuture.failedFuture(new InstanceNotFoundException(service, address));
            }
            CheckerType checker = specOf(service).settingsFor(address.cluster()).type();
            if (checker != CheckerType.NONE) {
                return CompletableFuture.failedFuture(new HealthNotSettableException(
                        service,
                        address,
                        "cluster " + address.cluster() + " is probed by " + checker
                                + "; set its checker to NONE first"));
            }
            return setPersistentHealth(service, cluster, ip, port, healthy).thenApply(changed -> null);
        });
    }

    /**
     * Sets a persistent instance's healthy flag through the store, for the health checker: writes
     * only if it differs, whatever the cluster's checker. Completes with true once a change is
     * durable, false when there was nothing to write (same value, or no such instance).
     */
    public CompletableFuture<Boolean> setPersistentHealth(
            ServiceKey service, String cluster, String ip, int port, boolean healthy) {
        InstanceAddress address = new InstanceAddress(cluster, ip, port);
        return persistent
                .modify(service, address, i -> i.withHealthy(healthy))
                .thenApply(edit -> edit.map(PersistentInstances.Edit::changed).orElse(false));
    }

    /**
     * Changes whenever this node's persistent instances or service specs may have changed: a
     * reader of {@link #persistentInstances()} need not read again while it stays the same.
     */
    public long persistentVersion() {
        return persistentFeed.version();
    }

    /**
     * Every persistent instance on this node's replica with its cluster's health-check settings,
     * for the health checker. Reads the whole instance keyspace.
     */
    public List<PersistentInstance> persistentInstances() {
        Map<ServiceKey, ServiceSpec> specs = new HashMap<>();
        List<PersistentInstance> out = new ArrayList<>();
        for (PersistentInstances.Stored s : persistent.all()) {
            ServiceSpec spec = specs.computeIfAbsent(s.service(), this::specOf);
            out.add(new PersistentInstance(
                    s.service(), s.instance(), spec.settingsFor(s.instance().cluster())));
        }
        return out;
    }

    // ---------------------------------------------------------------- services

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
        return confirmingAbsence(() -> records.update(
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
        return confirmingAbsence(() -> records.update(
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
        return confirmingAbsence(() -> serviceDeletes
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

    // ---------------------------------------------------------------- notifications, metrics, lifecycle

    /**
     * Subscribes {@code listener} to changes of every service (see {@link NamingChangeListener} for
     * when and on which thread it is called); close the result to unsubscribe.
     */
    public AutoCloseable subscribe(NamingChangeListener listener) {
        return notifier.subscribe(listener);
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

    /**
     * Runs one expiry pass over the ephemeral instances now, on the caller's thread: what the
     * heartbeat monitor runs every {@link NamingOptions#heartbeatCheckInterval()}. For tests and
     * operators.
     */
    public void checkHeartbeatsNow() {
        monitor.checkNow();
    }

    /** Stops the heartbeat monitor, the change-feed subscription and notifications. The store stays open. */
    @Override
    public void close() {
        monitor.close();
        distro.close();
        try {
            feedSubscription.close();
        } catch (Exception e) {
            LOG.warn("unsubscribing the naming registry from the change feed failed", e);
        }
        notifier.close();
    }

    /**
     * Runs {@code op}, and once more after this node's replica has caught up with the leader
     * ({@link KvStore#linearizable()}) if it failed for want of the service or instance: a follower
     * may not yet have applied a write another node already acknowledged, and a client that created
     * something on one node and edits it on another must not be told it does not exist. Only
     * refusals pay for the extra round trip.
     */
    private <T> CompletableFuture<T> confirmingAbsence(Supplier<CompletableFuture<T>> op) {
        return op.get().exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            return cause instanceof ServiceNotFoundException || cause instanceof InstanceNotFoundException
                    ? store.linearizable().thenCompose(caughtUp -> op.get())
                    : CompletableFuture.failedFuture(cause);
        });
    }

    private ServiceSpec specOf(ServiceKey service) {
        return records.get(service).map(ServiceRecords.StoredSpec::spec).orElse(ServiceSpec.DEFAULT);
    }
}
