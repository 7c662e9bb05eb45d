package io.lodestar.kv.raftport;

import com.alipay.sofa.jraft.entity.PeerId;
import io.lodestar.kv.PeerTls;

/** What a node proves on the Raft port: that it holds the cluster secret, and which member it is. */
public final class PeerCredentials {
    private final byte[] clusterSecret;
    private final String self;
    private final PeerTls tls;

    /**
     * @param clusterSecret the secret shared by every member
     * @param self          this node's Raft address, host:port
     */
    public PeerCredentials(byte[] clusterSecret, String self) {
        this(clusterSecret, self, null);
    }

    /**
     * @param clusterSecret the secret shared by every member
     * @param self          this node's Raft address, host:port
     * @param tls           the Raft port's TLS, which this node's connections to it use; null for none
     */
    public PeerCredentials(byte[] clusterSecret, String self, PeerTls tls) {
        if (clusterSecret == null || clusterSecret.length == 0) {
            throw new IllegalArgumentException("the Raft port needs a cluster secret");
        }
        this.self = endpointOf(self);
        if (this.self == null) {
            throw new IllegalArgumentException("not a Raft address: " + self);
        }
        this.clusterSecret = clusterSecret.clone();
        this.tls = tls;
    }

    /** TLS for this node's connections to the Raft port, or null. */
    public PeerTls tls() {
        return tls;
    }

    /** The secret itself: for MACs only, never for a log or a message. */
    public byte[] clusterSecret() {
        return clusterSecret;
    }

    /** This node's host:port. */
    public String self() {
        return self;
    }

    /**
     * A peer id's host:port, its index or priority suffix dropped, so that two spellings of one
     * member compare equal; null when {@code peer} is not a peer id.
     */
    public static String endpointOf(String peer) {
        PeerId id = peer == null ? null : PeerId.parsePeer(peer);
        return id == null || id.isEmpty() ? null : id.getEndpoint().toString();
    }

    /** Never the secret. */
    @Override
    public String toString() {
        return "PeerCredentials[self=" + self + "]";
    }
}
