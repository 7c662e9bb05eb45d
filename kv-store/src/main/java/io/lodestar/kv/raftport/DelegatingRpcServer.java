package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.ConnectionClosedEventListener;

/** A JRaft RPC server that passes everything to another; subclasses change what they register. */
public abstract class DelegatingRpcServer implements RpcServer {
    protected final RpcServer server;

    protected DelegatingRpcServer(RpcServer server) {
        this.server = server;
    }

    @Override
    public void registerProcessor(RpcProcessor<?> processor) {
        server.registerProcessor(processor);
    }

    @Override
    public void registerConnectionClosedEventListener(ConnectionClosedEventListener listener) {
        server.registerConnectionClosedEventListener(listener);
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
}
