package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.error.RaftError;
import io.lodestar.kv.KvException;
import io.lodestar.kv.NotLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Proposes commands to the Raft log while this node leads, in the term it leads, and maps JRaft's
 * refusals to the store's errors: "not leader" where nothing was appended (the caller may retry
 * elsewhere), "outcome unknown" where it may commit.
 */
final class LeaderProposals {
    private final String selfAddress;
    private final PeerId self;
    private final DiskGuard disk;
    private final Deadlines deadlines;
    private final Supplier<NodeImpl> node;
    private final LongSupplier leaderTerm;
    private final BooleanSupplier closed;

    LeaderProposals(
            String selfAddress,
            DiskGuard disk,
            Deadlines deadlines,
            Supplier<NodeImpl> node,
            LongSupplier leaderTerm,
            BooleanSupplier closed) {
        this.selfAddress = selfAddress;
        this.self = PeerId.parsePeer(selfAddress);
        this.disk = disk;
        this.deadlines = deadlines;
        this.node = node;
        this.leaderTerm = leaderTerm;
        this.closed = closed;
    }

    /** Proposes on this node if it leads; fails with {@link NotLeaderException} otherwise. */
    CompletableFuture<WriteResult> proposeAsLeader(Command command) {
        CompletableFuture<WriteResult> future = new CompletableFuture<>();
        String full = disk.refusal();
        if (full != null) {
            future.completeExceptionally(new StoreUnavailableException(selfAddress + ": " + full));
            return future;
        }
        long expectedTerm = leaderTerm.getAsLong();
        NodeImpl n = node.get();
        if (closed.getAsBoolean() || expectedTerm < 0 || n == null || !n.isLeader()) {
            future.completeExceptionally(new NotLeaderException(leaderHint()));
            return future;
        }
        Task task = new Task();
        task.setData(ByteBuffer.wrap(KvStateMachine.CODEC.encode(command)));
        task.setExpectedTerm(expectedTerm);
        task.setDone(
                new ProposeClosure(command, future::complete, status -> future.completeExceptionally(failure(status))));
        deadlines.add(future);
        try {
            n.apply(task);
        } catch (RuntimeException e) {
            // JRaft throws instead of failing the closure once it is shutting down
            future.completeExceptionally(new StoreUnavailableException("the store is shutting down", e));
        }
        return future;
    }

    private KvException failure(Status status) {
        if (ProposeClosure.refusedBeforeAppend(status)) {
            if (status.getRaftError() == RaftError.ENODESHUTDOWN) {
                return new StoreUnavailableException("the store is shutting down");
            }
            if (status.getRaftError() == RaftError.EBUSY
                    && !status.getErrorMsg().contains("transferring")) {
                return new StoreUnavailableException("the leader is overloaded: " + status.getErrorMsg());
            }
            return new NotLeaderException(leaderHint());
        }
        return new WriteOutcomeUnknownException("leader could not confirm the write: " + status);
    }

    /** The leader's address as this node knows it, or null if unknown or this node. */
    String leaderHint() {
        NodeImpl n = node.get();
        if (n == null) {
            return null;
        }
        PeerId leader = n.getLeaderId();
        return leader == null || leader.isEmpty() || leader.equals(self)
                ? null
                : leader.getEndpoint().toString();
    }
}
