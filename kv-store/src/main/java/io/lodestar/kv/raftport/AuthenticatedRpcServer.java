package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.ConnectionClosedEventListener;

/**
 * The Raft port's server: serves the handshake, and lets every other processor registered on it
 * see only requests from connections that completed it (see {@link PeerGate}).
 */
public final class AuthenticatedRpcServer implements RpcServer {
    private final RpcServer server;
    private final RefusalLog refusals = new RefusalLog();

    public AuthenticatedRpcServer(RpcServer server, byte[] clusterSecret) {
        this.server = server;
        HandshakeSerializer.register();
        server.registerProcessor(new HandshakeProcessor(new HandshakeMacs(clusterSecret), refusals));
    }

    @Override
    public void registerProcessor(RpcProcessor<?> processor) {
        server.registerProcessor(new PeerGate<>(processor, refusals));
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
