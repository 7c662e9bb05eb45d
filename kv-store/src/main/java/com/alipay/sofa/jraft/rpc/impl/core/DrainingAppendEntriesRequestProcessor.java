package com.alipay.sofa.jraft.rpc.impl.core;

import com.alipay.sofa.jraft.rpc.Connection;
import java.util.Set;
import java.util.concurrent.Executor;

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
 */
public final class DrainingAppendEntriesRequestProcessor extends AppendEntriesRequestProcessor {
    private final String groupId;

    public DrainingAppendEntriesRequestProcessor(Executor executor, String groupId) {
        super(executor);
        this.groupId = groupId;
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
