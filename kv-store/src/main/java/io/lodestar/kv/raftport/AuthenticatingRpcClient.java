package io.lodestar.kv.raftport;

import com.alipay.remoting.Connection;
import com.alipay.remoting.config.BoltClientOption;
import com.alipay.sofa.jraft.error.ConnectionFailureException;
import com.alipay.sofa.jraft.error.RemotingException;
import com.alipay.sofa.jraft.option.RpcOptions;
import com.alipay.sofa.jraft.rpc.InvokeCallback;
import com.alipay.sofa.jraft.rpc.InvokeContext;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcClient;
import com.alipay.sofa.jraft.util.Endpoint;
import io.lodestar.kv.PeerTls;

/**
 * JRaft's bolt client, completing the handshake (see {@link HandshakeMessage}) on each new
 * connection before the first request goes out on it. Its credentials come from the options it
 * is initialised with ({@link CarriesCredentials}); without them it sends nothing at all.
 *
 * <p>The handshake runs on the calling thread, once per connection, within the connect timeout
 * (it is part of making the connection): the callers that race to a new connection wait for the
 * one that does it.
 */
public final class AuthenticatingRpcClient extends BoltRpcClient {
    private static final String AUTHENTICATED = "lodestar.raft-port.authenticated";

    private PeerCredentials credentials;
    private HandshakeMacs macs;
    private int connectTimeoutMs;

    private final com.alipay.remoting.rpc.RpcClient bolt;

    public AuthenticatingRpcClient() {
        this(new com.alipay.remoting.rpc.RpcClient());
    }

    private AuthenticatingRpcClient(com.alipay.remoting.rpc.RpcClient bolt) {
        super(bolt);
        this.bolt = bolt;
        HandshakeSerializer.register();
    }

    @Override
    public boolean init(RpcOptions opts) {
        if (opts instanceof CarriesCredentials carrier && carrier.credentials() != null) {
            credentials = carrier.credentials();
            macs = new HandshakeMacs(credentials.clusterSecret());
            PeerTls tls = credentials.tls();
            if (tls != null) { // bolt reads these when it starts, in super.init
                bolt.option(BoltClientOption.CLI_SSL_ENABLE, true);
                bolt.option(BoltClientOption.CLI_SSL_KEYSTORE, tls.keyStore().toString());
                bolt.option(BoltClientOption.CLI_SSL_KEYSTORE_TYPE, PeerTls.KEY_STORE_TYPE);
                bolt.option(BoltClientOption.CLI_SSL_KEYSTORE_PASS, tls.password());
            }
        }
        connectTimeoutMs = opts.getRpcConnectTimeoutMs();
        return super.init(opts);
    }

    @Override
    public Object invokeSync(Endpoint endpoint, Object request, InvokeContext ctx, long timeoutMs)
            throws InterruptedException, RemotingException {
        authenticate(endpoint);
        return super.invokeSync(endpoint, request, ctx, timeoutMs);
    }

    @Override
    public void invokeAsync(
            Endpoint endpoint, Object request, InvokeContext ctx, InvokeCallback callback, long timeoutMs)
            throws InterruptedException, RemotingException {
        authenticate(endpoint);
        super.invokeAsync(endpoint, request, ctx, callback, timeoutMs);
    }

    private void authenticate(Endpoint endpoint) throws InterruptedException, RemotingException {
        if (credentials == null) {
            throw new HandshakeRefusedException(
                    "no cluster secret to present on the Raft port: nothing sent to " + endpoint);
        }
        Connection connection;
        try {
            connection = getRpcClient().getConnection(endpoint.toString(), connectTimeoutMs);
        } catch (com.alipay.remoting.exception.RemotingException | RuntimeException e) {
            // JRaft calls this holding a replicator's lock, and releases it only on the checked
            // exceptions: nothing unchecked may leave here (bolt's stopped client throws one).
            throw new ConnectionFailureException(e);
        }
        if (connection == null) {
            throw new ConnectionFailureException("no connection to " + endpoint);
        }
        if (connection.getAttribute(AUTHENTICATED) != null) {
            return;
        }
        synchronized (connection) {
            if (connection.getAttribute(AUTHENTICATED) == null) {
                handshake(connection, endpoint, connectTimeoutMs);
                connection.setAttribute(AUTHENTICATED, Boolean.TRUE);
            }
        }
    }

    private void handshake(Connection connection, Endpoint endpoint, int timeoutMs)
            throws InterruptedException, RemotingException {
        HandshakeMessage challenge = exchange(connection, HandshakeMessage.hello(), timeoutMs);
        if (challenge.step() != HandshakeMessage.CHALLENGE) {
            throw new HandshakeRefusedException(endpoint + " refused to start the Raft port handshake");
        }
        String self = credentials.self();
        byte[] nonce = HandshakeMacs.nonce();
        HandshakeMessage answer = exchange(
                connection,
                HandshakeMessage.proof(self, nonce, macs.clientProof(challenge.nonce(), nonce, self)),
                timeoutMs);
        if (answer.step() != HandshakeMessage.ACCEPTED) {
            // The connection stays: the next call proves itself again on it, and is refused again
            // until the secrets agree, each time with this message rather than a transport error.
            throw new HandshakeRefusedException(
                    endpoint + " refused this node's proof of the cluster secret (do the members' secrets differ?)");
        }
        if (!HandshakeMacs.same(macs.serverProof(challenge.nonce(), nonce, self), answer.mac())) {
            connection.close();
            throw new HandshakeRefusedException(
                    endpoint + " could not prove it holds the cluster secret: not a member");
        }
    }

    private HandshakeMessage exchange(Connection connection, HandshakeMessage message, int timeoutMs)
            throws InterruptedException, RemotingException {
        Object answer;
        try {
            answer = getRpcClient().invokeSync(connection, message, timeoutMs);
        } catch (com.alipay.remoting.exception.RemotingException | RuntimeException e) {
            connection.close();
            throw new RemotingException(
                    "Raft port handshake with " + connection.getUrl() + " failed: " + e.getMessage(), e);
        }
        return answer instanceof HandshakeMessage handshake ? handshake : HandshakeMessage.decode(null);
    }
}
