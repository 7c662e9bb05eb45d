package io.lodestar.kv.raftport;

/**
 * JRaft options that carry a node's credentials to the RPC client JRaft builds from them: the
 * client is made by a factory loaded by SPI, and the options are the one thing of ours it is given.
 */
public interface CarriesCredentials {
    PeerCredentials credentials();
}
