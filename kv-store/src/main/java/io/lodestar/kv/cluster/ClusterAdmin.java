package io.lodestar.kv.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * Changes the Raft group's membership at run time, from any member: the request goes to the
 * leader, which commits the new configuration through the group (one member at a time, as Raft
 * requires). Addresses are {@code host:raftPort}, as in {@code --peers}. Futures fail with
 * {@link io.lodestar.error.InvalidRequestException} on {@code address} (malformed, already a member,
 * not a member) or with {@link io.lodestar.kv.StoreUnavailableException} naming the group's reason.
 */
public interface ClusterAdmin {
    /**
     * Adds a member; completes once the new configuration is committed. Start the new node first,
     * with {@code --peers} listing the current members and itself: it catches up from the leader
     * (by snapshot when the log was compacted) and counts towards the quorum from the commit on.
     */
    CompletableFuture<Void> addMember(String address);

    /** Removes a member (stop it afterwards); the leader may remove itself, handing over first. */
    CompletableFuture<Void> removeMember(String address);

    /** Asks the leader to hand leadership to {@code address}, a caught-up member. */
    CompletableFuture<Void> transferLeadership(String address);
}
