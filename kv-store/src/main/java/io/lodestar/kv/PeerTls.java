package io.lodestar.kv;

import java.nio.file.Path;

/**
 * TLS on the Raft port, for what members send each other (replication, which carries the token
 * signing key, and the node-to-node channel) and for their connections to it. Bolt, the port's
 * transport, reads one PKCS#12 key store for both ends: this member's key and certificate chain,
 * which it presents, and the certificates it trusts.
 *
 * <p>Connections still prove the cluster secret inside TLS: the certificate says who may talk to
 * the port, the secret which member is talking.
 *
 * @param keyStore a PKCS#12 file readable by its owner only
 * @param password the key store's password
 * @param requireMemberCertificates whether a connecting member must present a trusted certificate
 *     too (mutual TLS), not only the port
 */
public record PeerTls(Path keyStore, String password, boolean requireMemberCertificates) {
    public static final String KEY_STORE_TYPE = "PKCS12";

    /** Never the password. */
    @Override
    public String toString() {
        return "PeerTls[keyStore=" + keyStore + ", requireMemberCertificates=" + requireMemberCertificates + "]";
    }
}
