package com.alipay.sofa.jraft.rpc.impl.core;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.rpc.Connection;
import com.alipay.sofa.jraft.rpc.RaftServerService;
import com.alipay.sofa.jraft.rpc.RpcRequestClosure;
import com.alipay.sofa.jraft.rpc.RpcRequests.AppendEntriesRequest;
import com.alipay.sofa.jraft.rpc.RpcRequests.AppendEntriesResponse;
import com.alipay.sofa.jraft.util.RpcFactoryHelper;
import com.google.protobuf.Message;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * JRaft's AppendEntries processor with its connection-close handling made non-blocking. It lives
 * in JRaft's package because the contexts it drains are package-private there (JRaft 1.4.1).
 *
 * <p>JRaft's {@code onClosed} removes the closed connection's per-peer contexts while holding the
 * group's context map monitor, and under that monitor waits (up to 15 s) for each context's worker
 * thread to finish. A worker that still has a request queued from that connection (the usual case
 * when a leader is killed mid-stream) looks its context up again, finds it gone and blocks on the
 * same monitor: both sit until the 15 s timeout. Meanwhile the first AppendEntries of any new
 * leader needs that monitor to create its context, on the I/O thread of its connection, so that
 * connection's votes and entries stall as well: the group has no working leader for about 15 s.
 *
 * <p>Here each context's worker is drained first, while the context is still registered, so the
 * queued requests run (and are answered on the dead connection, or not at all) without waiting for
 * the monitor; JRaft's own removal then finds nothing left to wait for.
 *
 * <p>It also refuses entries while this node's disk is nearly full ({@code diskRefusal} names why):
 * a log append that hits ENOSPC halts a JRaft node until a restart, so a follower answers EBUSY
 * instead, in the sequence the leader expects, and the leader's replicator backs off and retries.
 * Heartbeats and probes (no entries) are served, so the follower keeps its leader and does not
 * start elections; it takes entries again by itself once space is freed.
 */
public final class DrainingAppendEntriesRequestProcessor extends AppendEntriesRequestProcessor {
    private final String groupId;
    private final Supplier<String> diskRefusal;

    public DrainingAppendEntriesRequestProcessor(Executor executor, String groupId, Supplier<String> diskRefusal) {
        super(executor);
        this.groupId = groupId;
        this.diskRefusal = diskRefusal;
    }

    @Override
    public Message processRequest0(RaftServerService service, AppendEntriesRequest request, RpcRequestClosure done) {
        String refusal = request.getEntriesCount() > 0 ? diskRefusal.get() : null;
        if (refusal == null) {
            return super.processRequest0(service, request, done);
        }
        Message busy = RpcFactoryHelper.responseFactory()
                .newResponse(AppendEntriesResponse.getDefaultInstance(), RaftError.EBUSY, "%s", refusal);
        if (!((Node) service).getRaftOptions().isReplicatorPipeline()) {
            return busy;
        }
        // pipelined: the answer takes this request's place in the per-peer sequence, as JRaft's own do
        PeerPair pair = pairOf(request.getPeerId(), request.getServerId());
        Connection conn = done.getRpcCtx().getConnection();
        int sequence =
                getOrCreatePeerRequestContext(request.getGroupId(), pair, conn).getAndIncrementSequence();
        sendSequenceResponse(request.getGroupId(), pair, sequence, done.getRpcCtx(), busy);
        return null;
    }

    @Override
    public void onClosed(String remoteAddress, Connection conn) {
        @SuppressWarnings("unchecked")
        Set<PeerPair> pairs = (Set<PeerPair>) conn.getAttribute(PAIR_ATTR);
        if (pairs != null) {
            for (PeerPair pair : pairs) {
                PeerRequestContext context = getPeerRequestContext(groupId, pair);
                if (context != null) {
                    context.destroy(); // idempotent: the removal below skips the wait
                }
            }
        }
        super.onClosed(remoteAddress, conn);
    }
}
