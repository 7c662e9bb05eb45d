package io.lodestar.naming.service;

import io.lodestar.naming.HealthNotSettableException;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.PersistentInstance;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.model.ServiceSpec;
import io.lodestar.naming.persistent.PersistentFeed;
import io.lodestar.naming.persistent.PersistentInstances;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The health of persistent instances: what the health checker probes and writes back, and the
 * manual setting for clusters no probe owns. Writes complete once durable, on a store thread.
 */
public final class ProbedInstances {
    private final EphemeralRegistry ephemeral;
    private final PersistentInstances persistent;
    private final ServiceCatalog catalog;
    private final PersistentFeed persistentFeed;
    private final AbsenceConfirmation absence;

    ProbedInstances(
            EphemeralRegistry ephemeral,
            PersistentInstances persistent,
            ServiceCatalog catalog,
            PersistentFeed persistentFeed,
            AbsenceConfirmation absence) {
        this.ephemeral = ephemeral;
        this.persistent = persistent;
        this.catalog = catalog;
        this.persistentFeed = persistentFeed;
        this.absence = absence;
    }

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
        return absence.confirming(() -> {
            if (persistent.get(service, address).isEmpty()) {
                return CompletableFuture.failedFuture(new InstanceNotFoundException(service, address));
            }
            CheckerType checker =
                    catalog.specOf(service).settingsFor(address.cluster()).type();
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
            ServiceSpec spec = specs.computeIfAbsent(s.service(), catalog::specOf);
            out.add(new PersistentInstance(
                    s.service(), s.instance(), spec.settingsFor(s.instance().cluster())));
        }
        return out;
    }
}
