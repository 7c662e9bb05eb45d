package io.lodestar.kv.cluster;

/** A member's Raft role as the member itself reports it; UNREACHABLE when it cannot be asked. */
public enum MemberState {
    LEADER,
    FOLLOWER,
    CANDIDATE,
    UNREACHABLE
}
