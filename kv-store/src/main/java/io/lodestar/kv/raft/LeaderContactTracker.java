package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.kv.cluster.LeaderContact;

/**
 * Notes on each tick of the store whether a leader is known. JRaft keeps a follower's leader until
 * an election timeout passes without hearing from it, and a leader steps down once a majority has
 * not answered for as long, so "known at the last tick" is "heard from within an election timeout".
 */
final class LeaderContactTracker {
    private final Node node;
    private volatile LeaderContact current = new LeaderContact(0, System.currentTimeMillis());

    LeaderContactTracker(Node node) {
        this.node = node;
    }

    void tick() {
        PeerId leader = node.getLeaderId();
        long now = System.currentTimeMillis();
        LeaderContact was = current;
        if (leader != null && !leader.isEmpty()) {
            current = new LeaderContact(now, 0);
        } else if (was.noLeaderSinceMillis() == 0) {
            current = new LeaderContact(was.lastContactMillis(), now);
        }
    }

    LeaderContact current() {
        return current;
    }

    /**
     * What a node that does not serve adds to its reason: since when it has known no leader, and
     * which members it cannot reach; empty while a leader is known and every member answers.
     */
    String detail(java.util.List<String> unreachable) {
        StringBuilder out = new StringBuilder();
        long since = current.noLeaderSinceMillis();
        if (since != 0) {
            out.append("; no leader since ")
                    .append(java.time.Instant.ofEpochMilli(since).truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
                    .append(" (")
                    .append((System.currentTimeMillis() - since) / 1000)
                    .append(" s)");
        }
        if (!unreachable.isEmpty()) {
            out.append("; members unreachable: ").append(String.join(", ", unreachable));
        }
        return out.toString();
    }
}
