package io.lodestar.api.tls;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The certificate chain and private key a node proves itself with to its clients, on the HTTP
 * port (the Open API, the console and the push channel's WebSocket) and on the gRPC port. Each
 * server stack takes it in its own form ({@link #forHttp}, {@link #forGrpc}); both offer TLS 1.3
 * and 1.2 only. Immutable, and checked when built: the key is the private half of the chain's
 * first certificate.
 */
public final class ServerTls {
    /** TLS 1.0 and 1.1 are deprecated (RFC 8996); every client this node serves speaks 1.2. */
    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    /** The password of a key store that exists only in this process's memory, where Jetty's API wants one. */
    private static final char[] IN_MEMORY_STORE = "in-memory".toCharArray();

    private final List<X509Certificate> chain;
    private final PrivateKey key;

    private ServerTls(List<X509Certificate> chain, PrivateKey key) {
        this.chain = chain;
        this.key = key;
    }

    /**
     * {@code key} with the certificate {@code chain} (leaf first) it belongs to. Throws {@link
     * IllegalArgumentException} when the key is not the leaf's, or is neither RSA nor EC.
     */
    public static ServerTls of(List<X509Certificate> chain, PrivateKey key) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("no certificate");
        }
        requireKeyOf(chain.get(0), key);
        return new ServerTls(List.copyOf(chain), key);
    }

    /** The certificate clients are shown, for the start-up log. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    /** For Jetty's HTTPS connector. */
    public SslContextFactory.Server forHttp() {
        SslContextFactory.Server factory = new SslContextFactory.Server();
        factory.setSslContext(sslContext());
        factory.setIncludeProtocols(PROTOCOLS);
        return factory;
    }

    /** For grpc-java's Netty server: HTTP/2 negotiated by ALPN, as gRPC over TLS requires. */
    public SslContext forGrpc() {
        try {
            return GrpcSslContexts.configure(SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new)))
                    .protocols(PROTOCOLS)
                    .build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS for gRPC: " + e.getMessage(), e);
        }
    }

    private SSLContext sslContext() {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("lodestar", key, IN_MEMORY_STORE, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, IN_MEMORY_STORE);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS for HTTP: " + e.getMessage(), e);
        }
    }

    /**
     * Signs with {@code key} and verifies with the certificate's public key: one check for every
     * key type, where comparing the keys' numbers would need one per type.
     */
    static void requireKeyOf(X509Certificate certificate, PrivateKey key) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default ->
                throw new IllegalArgumentException("the key is " + key.getAlgorithm() + "; give an RSA or EC key");
        };
        byte[] probe = "lodestar key check".getBytes(StandardCharsets.US_ASCII);
        boolean matches;
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) { // e.g. an EC certificate's key given to RSA
            matches = false;
        }
        if (!matches) {
            throw new IllegalArgumentException(
                    "the key is not the private key of the certificate " + certificate.getSubjectX500Principal());
        }
    }
}
