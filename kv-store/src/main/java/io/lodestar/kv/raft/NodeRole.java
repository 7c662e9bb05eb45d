package io.lodestar.kv.raft;

/**
 * This node's role as the state machine reports it: the current term, the term it leads (or -1),
 * and why it halted, passed on to readiness once that exists. Registered before the node starts: a
 * one-node group elects itself inside start(), and a leadership event missed there would leave the
 * node refusing every write as not leader.
 */
final class NodeRole implements RoleListener {
    private volatile long term;
    private volatile long leaderTerm = -1;
    private volatile String haltReason;
    private volatile ReadinessTracker readiness;

    @Override
    public void onRoleChange(String role, long newTerm, String leader) {
        if (newTerm >= 0) {
            term = newTerm;
        }
        leaderTerm = "LEADER".equals(role) ? newTerm : -1;
        ReadinessTracker r = readiness;
        if (r != null) {
            r.roleChanged(role, leader);
        }
    }

    @Override
    public void onHalted(String reason) {
        haltReason = reason;
        ReadinessTracker r = readiness;
        if (r != null) {
            r.halted(reason);
        }
    }

    /** From now on role changes reach {@code tracker}; a halt seen before is passed on at once. */
    void reportTo(ReadinessTracker tracker) {
        readiness = tracker;
        String halted = haltReason;
        if (halted != null) {
            tracker.halted(halted);
        }
    }

    long term() {
        return term;
    }

    /** The term this node leads in, or -1 while it does not lead. */
    long leaderTerm() {
        return leaderTerm;
    }
}
