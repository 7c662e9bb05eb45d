package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.option.CliOptions;

/** JRaft CLI service options, with the credentials its membership RPCs present. */
public final class CredentialedCliOptions extends CliOptions implements CarriesCredentials {
    private final PeerCredentials credentials;

    public CredentialedCliOptions(PeerCredentials credentials) {
        this.credentials = credentials;
    }

    @Override
    public PeerCredentials credentials() {
        return credentials;
    }
}
