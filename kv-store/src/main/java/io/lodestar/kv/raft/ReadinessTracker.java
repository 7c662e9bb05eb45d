package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.closure.ReadIndexClosure;
import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.kv.cluster.Readiness;

/**
 * Ready means: a leader is known and this node has applied everything the leader had committed
 * when this node last (re)joined it. Proven with a ReadIndex round after each role change, so a
 * restarted follower is not ready until it has caught up; not ready again as soon as the leader
 * is lost.
 */
final class ReadinessTracker {
    private final Node node;
    private volatile Readiness current = new Readiness(false, "starting: no leader known yet");
    private volatile long epoch;
    private volatile boolean probing;
    private volatile String halted;

    ReadinessTracker(Node node) {
        this.node = node;
    }

    Readiness current() {
        return current;
    }

    void roleChanged(String role, String leader) {
        epoch++;
        if (halted == null) {
            current = new Readiness(
                    false,
                    leader == null && !"LEADER".equals(role) ? "no leader known" : "catching up with the leader");
        }
    }

    void halted(String reason) {
        halted = reason;
        current = new Readiness(false, "raft node halted: " + reason);
    }

    /** Called periodically: while not ready, asks the leader how far to catch up. */
    void probe() {
        if (halted != null || current.ready() || probing) {
            return;
        }
        PeerId leader = node.getLeaderId();
        if (leader == null || leader.isEmpty()) {
            current = new Readiness(false, "no leader known");
            return;
        }
        long startEpoch = epoch;
        probing = true;
        node.readIndex(new byte[0], new ReadIndexClosure(2000) {
            @Override
            public void run(Status status, long index, byte[] reqCtx) {
                probing = false;
                if (halted != null || epoch != startEpoch) {
                    return;
                }
                current = status.isOk()
                        ? new Readiness(true, "ok")
                        : new Readiness(false, "catching up with the leader: " + status.getErrorMsg());
            }
        });
    }
}
