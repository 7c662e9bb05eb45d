package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.Checksums;
import java.util.List;

/**
 * One member's copy of a service's ephemeral instances, as replication (Distro) ships it: every
 * instance with the {@link VersionClock} version of its last change, and the addresses removed
 * lately with the version of their removal. Copies merge address by address, the higher version
 * winning ({@link Entry#outranks}), so merging is order-free and repeatable and two members that
 * changed different instances of one service at the same time (a partition, two members both
 * taking themselves for the owner) both keep both changes.
 */
public record ServiceCopy(ServiceKey service, List<Entry> entries) {

    public ServiceCopy {
        entries = List.copyOf(entries);
    }

    /**
     * One address in a copy: its instance, or null if the instance was removed (a tombstone,
     * kept for {@link MutationApplier#REMOVAL_MEMORY_MS} so an older copy cannot bring it back),
     * and the member holding the instance for its client's connection, if one does.
     */
    public record Entry(InstanceAddress address, Instance instance, long version, String holder) {
        /** A live instance; {@code holder} is the member that beats it for its connection, or null. */
        public static Entry live(Instance instance, long version, String holder) {
            return new Entry(instance.address(), instance, version, holder);
        }

        public static Entry removed(InstanceAddress address, long version) {
            return new Entry(address, null, version, null);
        }

        public boolean live() {
            return instance != null;
        }

        /**
         * True if this entry replaces {@code other} at the same address: a higher version; at the
         * same version (two members' clocks can stamp alike) a removal, else the higher checksum,
         * so every member picks the same one.
         */
        public boolean outranks(Entry other) {
            if (version != other.version) {
                return version > other.version;
            }
            if (live() != other.live()) {
                return !live();
            }
            return live() && Checksums.of(List.of(instance)).compareTo(Checksums.of(List.of(other.instance))) > 0;
        }
    }
}
