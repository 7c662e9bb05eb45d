package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcServer;

/**
 * The Raft port's server: serves the handshake, and lets every other processor registered on it
 * see only requests from connections that completed it (see {@link PeerGate}).
 */
public final class AuthenticatedRpcServer extends DelegatingRpcServer {
    private final RefusalLog refusals = new RefusalLog();

    public AuthenticatedRpcServer(RpcServer server, byte[] clusterSecret) {
        super(server);
        HandshakeSerializer.register();
        server.registerProcessor(new HandshakeProcessor(new HandshakeMacs(clusterSecret), refusals));
    }

    @Override
    public void registerProcessor(RpcProcessor<?> processor) {
        server.registerProcessor(new PeerGate<>(processor, refusals));
    }
}
