package io.lodestar.kv.raft;

/** Role changes of the local node, called from JRaft's state machine thread; must not block. */
interface RoleListener {
    void onRoleChange(String role, long term, String leader);

    void onHalted(String reason);
}
