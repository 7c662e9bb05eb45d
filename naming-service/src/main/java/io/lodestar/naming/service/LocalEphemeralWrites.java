package io.lodestar.naming.service;

import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.distro.EphemeralWrite;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.Mutation;
import io.lodestar.naming.ephemeral.Outcome;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies an ephemeral write to this node's registry, as its service's owner or in the owner's
 * stead: the applier that {@link io.lodestar.naming.distro.Distro} calls. Runs on the caller's
 * thread (Distro's, or the writer's when this node owns the service); a refusal fails the
 * returned future instead of throwing.
 */
final class LocalEphemeralWrites {
    // the registry's logger, so that its log lines keep their name
    private static final Logger LOG = LoggerFactory.getLogger(NamingService.class);

    private final EphemeralRegistry ephemeral;
    private final OneKindRule oneKind;
    private final EphemeralQuotas quotas;

    LocalEphemeralWrites(EphemeralRegistry ephemeral, OneKindRule oneKind, EphemeralQuotas quotas) {
        this.ephemeral = ephemeral;
        this.oneKind = oneKind;
        this.quotas = quotas;
    }

    /** Applies {@code write}; completes with the beat's answer for a beat, null otherwise. */
    CompletableFuture<BeatResult> apply(EphemeralWrite write) {
        try {
            ServiceKey service = write.service();
            if (write instanceof EphemeralWrite.Register r) {
                oneKind.refuseMixing(service, r.instance());
                quotas.checkRoomFor(service, List.of(r.instance()));
                ephemeral.apply(service, new Mutation.Register(r.instance().withoutDefaultId(service), r.holder()));
            } else if (write instanceof EphemeralWrite.Deregister d) {
                ephemeral.apply(service, new Mutation.Deregister(d.address(), d.ifHeldBy()));
            } else if (write instanceof EphemeralWrite.Update u) {
                return edit(service, u.instance().address(), old -> InstanceWrites.merge(old, u.instance(), false));
            } else if (write instanceof EphemeralWrite.Patch p) {
                return edit(service, p.address(), p.patch()::applyTo);
            } else if (write instanceof EphemeralWrite.Beat b) {
                return CompletableFuture.completedFuture(beat(service, b.address(), b.beat()));
            }
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<BeatResult> edit(
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

    private BeatResult beat(ServiceKey service, InstanceAddress address, Optional<BeatInfo> beat) {
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
        oneKind.refuseMixing(service, again);
        quotas.checkRoomFor(service, List.of(again));
        ephemeral.apply(service, new Mutation.Register(again));
        LOG.debug("registered {} in {} again from its heartbeat", address, service);
        return new BeatResult(BeatResult.Status.OK, again.heartbeat().intervalMs());
    }
}
