package io.lodestar.kv.cluster;

import java.util.List;

/**
 * One node's view of the Raft group. Addresses are {@code host:raftPort} as given in
 * {@code --peers}; {@code httpAddress} is what each member published through the store (null
 * until it has).
 */
public record ClusterView(
        String self, String leader, long term, long appliedIndex, long commitIndex, List<Member> members) {
    public record Member(String address, String httpAddress, MemberState state) {}
}
