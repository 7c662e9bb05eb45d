package io.lodestar.naming.service;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.distro.EphemeralWrite;
import io.lodestar.naming.ephemeral.EphemeralRegistry;
import io.lodestar.naming.ephemeral.HeartbeatMonitor;
import io.lodestar.naming.model.BeatInfo;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.persistent.PersistentInstances;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Heartbeats of instances, and the expiry of ephemeral instances that miss them. A beat goes to
 * its service's owner ({@link Distro}); expiry runs on the owner, in the {@link HeartbeatMonitor}.
 */
public final class Heartbeats {
    private final EphemeralRegistry ephemeral;
    private final PersistentInstances persistent;
    private final Distro distro;
    private final HeartbeatMonitor monitor;

    Heartbeats(EphemeralRegistry ephemeral, PersistentInstances persistent, Distro distro, HeartbeatMonitor monitor) {
        this.ephemeral = ephemeral;
        this.persistent = persistent;
        this.distro = distro;
        this.monitor = monitor;
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
     * InstanceWrites#register} when the service holds persistent instances ({@link
     * InvalidRequestException} on {@code ephemeral}, thrown).
     */
    public BeatResult beat(ServiceKey service, String cluster, String ip, int port, Optional<BeatInfo> beat) {
        try {
            return beatAsync(service, cluster, ip, port, beat).join();
        } catch (CompletionException e) {
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
     * Runs one expiry pass over the ephemeral instances now, on the caller's thread: what the
     * heartbeat monitor runs every {@link NamingOptions#heartbeatCheckInterval()}. For tests and
     * operators.
     */
    public void checkNow() {
        monitor.checkNow();
    }
}
