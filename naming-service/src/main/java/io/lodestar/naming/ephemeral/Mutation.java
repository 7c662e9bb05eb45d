package io.lodestar.naming.ephemeral;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import java.util.function.Predicate;
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

    /**
     * Adds the instance or replaces the one at its address; counts as a beat. {@code holder} is the
     * member holding the instance for its client's connection (a gRPC client), or null when the
     * client beats it itself; the last registration decides.
     */
    record Register(Instance instance, String holder) implements Mutation {
        public Register {
            if (!instance.ephemeral()) {
                throw new IllegalArgumentException("only ephemeral instances live in the ephemeral registry");
            }
        }

        /** A registration by a client that beats the instance itself. */
        public Register(Instance instance) {
            this(instance, null);
        }

        @Override
        public boolean creates() {
            return true;
        }
    }

    /**
     * Removes the instance at the address; if {@code ifHeldBy} is not null, only while that member
     * holds it (a member letting go of an instance must not remove it once its client registered
     * it again through another member), or, when it is {@link #UNHELD}, only while no member holds
     * it (a deregistration over HTTP removes an instance kept by beats, never a connection's).
     */
    record Deregister(InstanceAddress address, String ifHeldBy) implements Mutation {
        /** {@code ifHeldBy} for "only while no connection holds it"; no member's address is empty. */
        public static final String UNHELD = "";

        /** Removes the instance whoever holds it. */
        public Deregister(InstanceAddress address) {
            this(address, null);
        }
    }

    /** Refreshes the instance's last beat, and makes it healthy again if it was not. */
    record Beat(InstanceAddress address) implements Mutation {}

    /** Replaces the instance at the address by {@code change} applied to it (an edit: PUT or PATCH). */
    record Modify(InstanceAddress address, UnaryOperator<Instance> change) implements Mutation {}

    /**
     * One expiry pass: marks silent instances unhealthy, removes long-silent ones. A held instance
     * lives while its holder is among the {@code liveMembers} (the holder's liveness is its lease,
     * renewed by every pass); once the holder is not, it is removed after its heartbeat timeout, not
     * its delete timeout: its client is either gone with the holder or has registered it again
     * through another member by then (which makes that member its holder).
     */
    record Expire(Predicate<String> liveMembers) implements Mutation {
        /** A pass that takes every holder for alive (a registry on its own). */
        public Expire() {
            this(member -> true);
        }
    }

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
