package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import java.util.function.UnaryOperator;

/**
 * A change to one service's ephemeral instances. Every change to the in-memory registry is one of
 * these, applied by {@link MutationApplier} under the service's lock, so a replication layer can
 * observe, forward or replay them at one place.
 */
public sealed interface Mutation {

    /** True if the mutation may create the service's entry when it does not exist yet. */
    default boolean creates() {
        return false;
    }

    /** Adds the instance or replaces the one at its address; counts as a beat. */
    record Register(Instance instance) implements Mutation {
        public Register {
            if (!instance.ephemeral()) {
                throw new IllegalArgumentException("only ephemeral instances live in the ephemeral registry");
            }
        }

        @Override
        public boolean creates() {
            return true;
        }
    }

    /** Removes the instance at the address. */
    record Deregister(InstanceAddress address) implements Mutation {}

    /** Refreshes the instance's last beat, and makes it healthy again if it was not. */
    record Beat(InstanceAddress address) implements Mutation {}

    /** Replaces the instance at the address by {@code change} applied to it (an edit: PUT or PATCH). */
    record Modify(InstanceAddress address, UnaryOperator<Instance> change) implements Mutation {}

    /** One expiry pass: marks silent instances unhealthy, removes long-silent ones. */
    record Expire() implements Mutation {}

    /**
     * Counts now as every instance's last beat, changing nothing visible: the grace a node gives the
     * instances of a service it has just taken over (their beats went to the previous owner).
     */
    record Grace() implements Mutation {}

    /** Merges a peer's copy of the service into this one, address by address (a replica catching up). */
    record Merge(ServiceCopy copy) implements Mutation {
        @Override
        public boolean creates() {
            return true;
        }
    }
}
