package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.ConnectionClosedEventListener;
import com.alipay.sofa.jraft.rpc.impl.core.AppendEntriesRequestProcessor;
import com.alipay.sofa.jraft.rpc.impl.core.DrainingAppendEntriesRequestProcessor;

/** JRaft's request processors, with its AppendEntries processor swapped for the draining one. */
final class RaftRequestProcessors {
    private RaftRequestProcessors() {
    }

    /**
     * Registers on {@code server} what {@link RaftRpcServerFactory#addRaftRequestProcessors(RpcServer)}
     * does, except that AppendEntries (as processor and as connection-close listener) is served by a
     * {@link DrainingAppendEntriesRequestProcessor} (see there why).
     */
    static void register(RpcServer server, String groupId) {
        DrainingAppendEntriesRequestProcessor appendEntries = new DrainingAppendEntriesRequestProcessor(null, groupId);
        RaftRpcServerFactory.addRaftRequestProcessors(new RpcServer() {
            @Override
            public void registerConnectionClosedEventListener(ConnectionClosedEventListener listener) {
                server.registerConnectionClosedEventListener(
                        listener instanceof AppendEntriesRequestProcessor ? appendEntries : listener);
            }

            @Override
            public void registerProcessor(RpcProcessor<?> processor) {
                server.registerProcessor(processor instanceof AppendEntriesRequestProcessor ? appendEntries : processor);
            }

            @Override
            public int boundPort() {
                return server.boundPort();
            }

            @Override
            public boolean isStarted() {
                return server.isStarted();
            }

            @Override
            public boolean init(Void opts) {
                return server.init(opts);
            }

            @Override
            public void shutdown() {
                server.shutdown();
            }
        });
    }
}
