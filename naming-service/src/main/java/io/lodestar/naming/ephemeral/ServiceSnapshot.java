package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import java.util.List;

/**
 * The ephemeral instances of one service at one moment: the unit a replication protocol (Distro)
 * ships between nodes and compares by {@code checksum} ({@link io.lodestar.naming.query.Checksums}).
 * Beat times are not part of it: each node ages what it owns, a replica trusts its owner.
 *
 * @param version the {@link VersionClock} version of the change that made this state; of two copies
 *                the one {@link #newerThan newer} by (version, checksum) wins, so members converge
 *                on the latest change wherever it was made
 */
public record ServiceSnapshot(ServiceKey service, List<Instance> instances, String checksum, long version) {

    public ServiceSnapshot {
        instances = List.copyOf(instances);
    }

    public Stamp stamp() {
        return new Stamp(version, checksum);
    }

    /** True if this copy should replace {@code other} ({@link Stamp} order). */
    public boolean newerThan(ServiceSnapshot other) {
        return stamp().compareTo(other.stamp()) > 0;
    }

    /**
     * What orders two copies of a service: the higher version, or for two changes stamped with the
     * same version on different members, the higher checksum, so every member picks the same one.
     */
    public record Stamp(long version, String checksum) implements Comparable<Stamp> {
        @Override
        public int compareTo(Stamp o) {
            return version != o.version ? Long.compare(version, o.version) : checksum.compareTo(o.checksum);
        }
    }
}
