package io.lodestar.api.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What a client of a node (the command line's) trusts when the node's certificate is not one the
 * JVM trusts already: the certificates of one PEM file, the CA's that signed the node's or a
 * self-signed node's own. The client still checks that the certificate names the address it dialled.
 */
public final class ClientTrust {
    private ClientTrust() {}

    /** A TLS context trusting the certificates in {@code pemFile} only; an {@link IllegalArgumentException} names the file. */
    public static SSLContext trusting(Path pemFile) {
        List<X509Certificate> certificates = PemFiles.certificates(pemFile);
        try {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            for (int i = 0; i < certificates.size(); i++) {
                trusted.setCertificateEntry("trusted-" + i, certificates.get(i));
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS trusting " + pemFile + ": " + e.getMessage(), e);
        }
    }
}
