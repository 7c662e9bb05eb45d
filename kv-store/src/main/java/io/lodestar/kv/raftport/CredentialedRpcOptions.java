package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.option.RpcOptions;

/** Plain RPC client options (the node-to-node channel's), with the credentials it presents. */
public final class CredentialedRpcOptions extends RpcOptions implements CarriesCredentials {
    private final PeerCredentials credentials;

    public CredentialedRpcOptions(PeerCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public PeerCredentials credentials() {
        return credentials;
    }
}
