package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.core.NodeImpl;
import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.kv.KvException;
import io.lodestar.kv.NoLeaderException;
import io.lodestar.kv.NotLeaderException;
import io.lodestar.kv.StoreUnavailableException;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.forward.ForwardClient;
import io.lodestar.kv.retry.RetryUntilDeadline;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a write to whichever node leads: proposes it here when this node leads, else forwards it to
 * the leader, and tries again while no leader is known or the one tried no longer leads, until the
 * request timeout. A forwarded write is answered once this node has applied it too.
 */
final class WriteRouter {
    private static final Logger LOG = LoggerFactory.getLogger(RaftKvStore.class);
    private static final Duration RETRY_DELAY = Duration.ofMillis(25);

    private final PeerId self;
    private final long requestTimeoutMs;
    private final Supplier<NodeImpl> node;
    private final LeaderProposals local;
    private final ForwardClient forwarder;
    private final KvStateMachine fsm;
    private final BooleanSupplier closed;
    private final RetryUntilDeadline retry;

    WriteRouter(
            PeerId self,
            long requestTimeoutMs,
            Supplier<NodeImpl> node,
            LeaderProposals local,
            ForwardClient forwarder,
            KvStateMachine fsm,
            BooleanSupplier closed,
            ScheduledExecutorService scheduler) {
        this.self = self;
        this.requestTimeoutMs = requestTimeoutMs;
        this.node = node;
        this.local = local;
        this.forwarder = forwarder;
        this.fsm = fsm;
        this.closed = closed;
        this.retry = new RetryUntilDeadline(
                scheduler,
                RETRY_DELAY,
                e -> e instanceof NotLeaderException || e instanceof NoLeaderException,
                last -> new NoLeaderException("no leader accepted the write within " + requestTimeoutMs + " ms: "
                        + (last == null ? "no leader known" : last.getMessage())),
                () -> new StoreUnavailableException("the store is shutting down"));
    }

    CompletableFuture<WriteResult> write(Command command) {
        return retry.run(
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMs),
                deadline -> attempt(command, deadline));
    }

    private CompletableFuture<WriteResult> attempt(Command command, long deadline) {
        try {
            return tryOnce(command, deadline);
        } catch (RuntimeException e) {
            LOG.error("write failed unexpectedly", e);
            return CompletableFuture.failedFuture(
                    e instanceof KvException ? e : new StoreUnavailableException("write failed: " + e, e));
        }
    }

    private CompletableFuture<WriteResult> tryOnce(Command command, long deadline) {
        if (closed.getAsBoolean()) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the store is shutting down"));
        }
        NodeImpl n = node.get();
        if (n.isLeader()) {
            return local.proposeAsLeader(command);
        }
        PeerId leader = n.getLeaderId();
        if (leader == null || leader.isEmpty() || leader.equals(self)) {
            return CompletableFuture.failedFuture(new NoLeaderException("no leader known"));
        }
        String target = leader.getEndpoint().toString();
        long remainingMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        return forwarder
                .write(target, command, remainingMs)
                .thenCompose(result -> appliedHere(target, result, deadline));
    }

    /**
     * Answers once this node has applied the write too, so a read here sees it. A node that cannot
     * (cut off from the leader's log) must not claim that: the write is committed, but the caller
     * cannot read it here, so it gets "unknown, read first".
     */
    private CompletableFuture<WriteResult> appliedHere(String target, WriteResult result, long deadline) {
        CompletableFuture<WriteResult> answer = new CompletableFuture<>();
        fsm.awaitApplied(result.index())
                .orTimeout(
                        Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())), TimeUnit.MILLISECONDS)
                .whenComplete((v, e) -> {
                    if (e == null) {
                        answer.complete(result);
                    } else {
                        answer.completeExceptionally(new WriteOutcomeUnknownException("committed by " + target
                                + " at index " + result.index() + ", but not applied on this node within "
                                + requestTimeoutMs + " ms: reads here may not show it yet"));
                    }
                });
        return answer;
    }
}
