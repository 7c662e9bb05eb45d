package io.lodestar.kv.raftport;

import com.alipay.remoting.config.BoltGenericOption;
import com.alipay.remoting.config.BoltServerOption;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcServer;
import io.lodestar.kv.PeerTls;
import io.lodestar.kv.RaftPortSettings;

/**
 * The Raft port's server: serves the handshake, and lets every other processor registered on it
 * see only requests from connections that completed it (see {@link PeerGate}). Until a connection
 * has, it is one of a bounded few and may send only small frames (see {@link RaftPortAdmission}).
 */
public final class AuthenticatedRpcServer extends DelegatingRpcServer {
    private final RefusalLog refusals;
    private final RaftPortAdmission admission;

    private AuthenticatedRpcServer(BoltRpcServer server, RaftPortAdmission admission, RefusalLog refusals) {
        super(server);
        this.refusals = refusals;
        this.admission = admission;
    }

    /** A server for the port at {@code host:port}, not yet listening ({@link #init}). */
    public static AuthenticatedRpcServer create(
            String host, int port, byte[] clusterSecret, RaftPortSettings settings) {
        RefusalLog refusals = new RefusalLog();
        RaftPortAdmission admission = new RaftPortAdmission(settings, refusals);
        com.alipay.remoting.rpc.RpcServer bolt = new com.alipay.remoting.rpc.RpcServer(host, port, true);
        bolt.option(BoltGenericOption.EXTENDED_NETTY_CHANNEL_HANDLER, admission);
        PeerTls tls = settings.tls();
        if (tls != null) {
            bolt.option(BoltServerOption.SRV_SSL_ENABLE, true);
            bolt.option(BoltServerOption.SRV_SSL_KEYSTORE, tls.keyStore().toString());
            bolt.option(BoltServerOption.SRV_SSL_KEYSTORE_TYPE, PeerTls.KEY_STORE_TYPE);
            bolt.option(BoltServerOption.SRV_SSL_KEYSTORE_PASS, tls.password());
            bolt.option(BoltServerOption.SRV_SSL_NEED_CLIENT_AUTH, tls.requireMemberCertificates());
        }
        BoltRpcServer server = new BoltRpcServer(bolt);
        HandshakeSerializer.register();
        server.registerProcessor(new HandshakeProcessor(new HandshakeMacs(clusterSecret), refusals));
        return new AuthenticatedRpcServer(server, admission, refusals);
    }

    @Override
    public void registerProcessor(RpcProcessor<?> processor) {
        server.registerProcessor(new PeerGate<>(processor, refusals));
    }

    /** Connections open on the port that have not proved the cluster secret yet. */
    public int unprovenConnections() {
        return admission.unproven();
    }
}
