package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.core.State;
import com.alipay.sofa.jraft.entity.PeerId;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a leader stops, hands leadership to a follower and waits until that one leads, so the
 * group is not leaderless for an election timeout. Tries the followers in turn, within a bound.
 */
final class LeadershipHandover {
    private static final Logger LOG = LoggerFactory.getLogger(RaftKvStore.class);
    private static final long WITHIN_SECONDS = 3;

    private final NodeImpl node;
    private final PeerId self;
    private final long electionTimeoutMs;

    LeadershipHandover(NodeImpl node, PeerId self, long electionTimeoutMs) {
        this.node = node;
        this.self = self;
        this.electionTimeoutMs = electionTimeoutMs;
    }

    /** Returns once another node leads, every follower was tried, or the bound passed; at once if this node does not lead. */
    void handOver(Supplier<List<String>> followers) {
        if (!node.isLeader()) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WITHIN_SECONDS);
        for (String target : followers.get()) {
            if (!node.isLeader() || System.nanoTime() > deadline) {
                break;
            }
            Status st = node.transferLeadershipTo(PeerId.parsePeer(target));
            if (!st.isOk()) {
                LOG.warn("leadership transfer to {} failed: {}", target, st);
                continue;
            }
            // The node is TRANSFERRING until the target asks for its vote (then it steps down,
            // and follows the target once that has won) or the transfer times out after an
            // election timeout (then it leads again, and the next follower is tried: the target
            // may have stopped since it last reported). Shutting down while TRANSFERRING would
            // cancel the transfer and leave the group leaderless for an election timeout.
            if (!await(() -> node.getNodeState() != State.STATE_TRANSFERRING, deadline)) {
                return;
            }
            long wonBy = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(electionTimeoutMs));
            if (!await(() -> followsAnotherLeader() || node.isLeader(), wonBy)) {
                return;
            }
            if (followsAnotherLeader()) {
                LOG.info("leadership handed to {} before shutdown", node.getLeaderId());
                return;
            }
            LOG.warn("leadership transfer to {} did not complete", target);
        }
    }

    /** Polls until {@code condition} holds or {@code deadline} passes; false if interrupted. */
    private static boolean await(BooleanSupplier condition, long deadline) {
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private boolean followsAnotherLeader() {
        PeerId leader = node.getLeaderId();
        return node.getNodeState() == State.STATE_FOLLOWER
                && leader != null
                && !leader.isEmpty()
                && !leader.equals(self);
    }
}
