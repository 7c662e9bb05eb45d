package io.lodestar.naming.service;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.InstanceHeldException;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.distro.EphemeralWrite;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.InstancePatch;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.persistent.PersistentInstances;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Registers, edits and removes instances of either kind: ephemeral ones through {@link Distro}
 * (done when the call returns), persistent ones through the store (done when the future completes,
 * on a store thread). Errors and threading as {@link NamingService} states them.
 */
public final class InstanceWrites {
    private final EphemeralRegistry ephemeral;
    private final PersistentInstances persistent;
    private final Distro distro;
    private final ServiceCatalog catalog;
    private final OneKindRule oneKind;
    private final AbsenceConfirmation absence;

    InstanceWrites(
            EphemeralRegistry ephemeral,
            PersistentInstances persistent,
            Distro distro,
            ServiceCatalog catalog,
            OneKindRule oneKind,
            AbsenceConfirmation absence) {
        this.ephemeral = ephemeral;
        this.persistent = persistent;
        this.distro = distro;
        this.catalog = catalog;
        this.oneKind = oneKind;
        this.absence = absence;
    }

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
            boolean probed =
                    catalog.specOf(service).settingsFor(named.cluster()).type() != CheckerType.NONE;
            return persistent.put(
                    service,
                    named,
                    () -> oneKind.refuseMixing(service, named),
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
        return absence.confirming(() -> {
            boolean manualHealth =
                    catalog.specOf(service).settingsFor(address.cluster()).type() == CheckerType.NONE;
            return persistent
                    .modify(service, address, old -> merge(old, instance, manualHealth))
                    .thenCompose(edit -> edit.isPresent()
                            ? CompletableFuture.<Void>completedFuture(null)
                            : CompletableFuture.failedFuture(new InstanceNotFoundException(service, address)));
        });
    }

    /** {@code old} edited as {@link #update} says, taking {@code given}'s health only if {@code takeHealth}. */
    static Instance merge(Instance old, Instance given, boolean takeHealth) {
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
        return absence.confirming(() -> persistent
                .modify(service, address, patch::applyTo)
                .thenCompose(edit -> edit.isPresent()
                        ? CompletableFuture.<Void>completedFuture(null)
                        : CompletableFuture.failedFuture(new InstanceNotFoundException(service, address))));
    }
}
