package io.lodestar.kv;

import io.lodestar.error.ErrorKind;

/**
 * This node is not the leader and nothing was proposed. The store forwards such writes itself;
 * callers only meet this from the node-to-node channel.
 */
public final class NotLeaderException extends KvException {
    private static final long serialVersionUID = 1L;
    private final String leader;

    public NotLeaderException(String leader) {
        super(
                ErrorKind.UNAVAILABLE,
                leader == null ? "not the leader, and no leader is known" : "not the leader; the leader is " + leader);
        this.leader = leader;
    }

    /** The leader this node knows (host:raftPort), or null. */
    public String leader() {
        return leader;
    }
}
