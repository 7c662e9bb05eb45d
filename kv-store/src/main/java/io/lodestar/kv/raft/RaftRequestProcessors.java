package io.lodestar.kv.raft;

import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.ConnectionClosedEventListener;
import com.alipay.sofa.jraft.rpc.impl.core.AppendEntriesRequestProcessor;
import com.alipay.sofa.jraft.rpc.impl.core.DiskGuardedInstallSnapshotRequestProcessor;
import com.alipay.sofa.jraft.rpc.impl.core.DrainingAppendEntriesRequestProcessor;
import com.alipay.sofa.jraft.rpc.impl.core.InstallSnapshotRequestProcessor;
import io.lodestar.kv.raftport.DelegatingRpcServer;
import java.util.function.Supplier;

/**
 * JRaft's request processors, with its AppendEntries processor swapped for the draining one and
 * both it and InstallSnapshot refusing what would fill a nearly full disk.
 */
final class RaftRequestProcessors {
    private RaftRequestProcessors() {}

    /**
     * Registers on {@code server} what {@link RaftRpcServerFactory#addRaftRequestProcessors(RpcServer)}
     * does, except that AppendEntries (as processor and as connection-close listener) is served by a
     * {@link DrainingAppendEntriesRequestProcessor} and InstallSnapshot by a {@link
     * DiskGuardedInstallSnapshotRequestProcessor} (see there why); {@code diskRefusal} says why
     * the disk cannot take more, or null.
     */
    static void register(RpcServer server, String groupId, Supplier<String> diskRefusal) {
        DrainingAppendEntriesRequestProcessor appendEntries =
                new DrainingAppendEntriesRequestProcessor(null, groupId, diskRefusal);

        RaftRpcServerFactory.addRaftRequestProcessors(new DelegatingRpcServer(server) {
            @Override
            public void registerConnectionClosedEventListener(ConnectionClosedEventListener listener) {
                server.registerConnectionClosedEventListener(
                        listener instanceof AppendEntriesRequestProcessor ? appendEntries : listener);
            }

            @Override
            public void registerProcessor(RpcProcessor<?> processor) {
                server.registerProcessor(
                        processor instanceof AppendEntriesRequestProcessor
                                ? appendEntries
                                : processor instanceof InstallSnapshotRequestProcessor
                                        ? new DiskGuardedInstallSnapshotRequestProcessor(
                                                processor.executor(), diskRefusal)
                                        : processor);
            }
        });
    }
}
