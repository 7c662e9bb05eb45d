package io.lodestar.naming.health;

import java.util.Objects;

/**
 * One persistent instance as the checker sees it.
 *
 * @param id stable identity of the instance across calls (e.g. namespace, group, service,
 *     cluster, ip and port joined); the checker keys its counters by it and hands it back in
 *     {@link HealthSink#flip}
 * @param ip the instance's IP literal, or a host name (resolved off the checker's timing thread)
 * @param port the instance's port; {@link ProbeSettings#portFor} picks the probed one
 * @param healthy the instance's health as currently stored
 * @param settings how to probe it (its cluster's checker settings)
 */
public record ProbeTarget(String id, String ip, int port, boolean healthy, ProbeSettings settings) {
    public ProbeTarget {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(ip, "ip");
        Objects.requireNonNull(settings, "settings");
    }

    /** The port the probe connects to. */
    public int probePort() {
        return settings.portFor(port);
    }
}
