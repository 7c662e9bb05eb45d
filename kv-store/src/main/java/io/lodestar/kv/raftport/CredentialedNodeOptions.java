package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.option.NodeOptions;

/** A Raft node's options, with the credentials its replication and vote RPCs present. */
public final class CredentialedNodeOptions extends NodeOptions implements CarriesCredentials {
    private final PeerCredentials credentials;

    public CredentialedNodeOptions(PeerCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public PeerCredentials credentials() {
        return credentials;
    }
}
