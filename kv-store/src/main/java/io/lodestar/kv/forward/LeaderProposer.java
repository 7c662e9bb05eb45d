package io.lodestar.kv.forward;

import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.util.concurrent.CompletableFuture;

/** What the node-to-node channel asks of the local node. */
public interface LeaderProposer {
    /**
     * Proposes {@code command} if this node leads; fails with {@link io.lodestar.kv.NotLeaderException}
     * without proposing otherwise. Completes as {@link io.lodestar.kv.KvStore#write} does.
     */
    CompletableFuture<WriteResult> proposeAsLeader(Command command);

    /** This node's own view: its role (LEADER, FOLLOWER, CANDIDATE), term and known leader. */
    NodeStatus status();

    record NodeStatus(String state, long term, String leader) {}
}
