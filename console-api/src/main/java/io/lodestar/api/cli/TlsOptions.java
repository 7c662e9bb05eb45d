package io.lodestar.api.cli;

import io.lodestar.api.tls.PemFiles;
import io.lodestar.api.tls.ServerTls;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --tls-cert-file} and {@code --tls-key-file}: TLS only, on the ports clients connect to. */
final class TlsOptions {
    @Option(
            names = "--tls-cert-file",
            paramLabel = "PEM",
            description = "The node's certificate chain (PEM, its own certificate first). With --tls-key-file the"
                    + " HTTP port serves HTTPS only (the push channel: wss) and the gRPC port TLS only, TLS 1.2"
                    + " and 1.3; DNS and the UDP push to nacos-client 1.x stay plain. Read at start only.")
    Path certFile;

    @Option(
            names = "--tls-key-file",
            paramLabel = "PEM",
            description = "The certificate's private key (PEM: PKCS#8, RSA or EC; not encrypted), in a file"
                    + " readable by its owner only, else refused.")
    Path keyFile;

    /**
     * The node's TLS identity, or null when neither option is given. An {@link
     * IllegalArgumentException} names the option and the file at fault.
     */
    ServerTls load() {
        if (certFile == null && keyFile == null) {
            return null;
        }
        if (certFile == null || keyFile == null) {
            throw new IllegalArgumentException(
                    "--tls-cert-file and --tls-key-file go together: give both, or neither for plain HTTP and gRPC");
        }
        List<X509Certificate> chain;
        try {
            chain = PemFiles.certificates(certFile);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tls-cert-file: " + e.getMessage(), e);
        }
        PrivateKey key;
        try {
            OwnerOnlyFiles.check(keyFile);
            key = PemFiles.privateKey(keyFile);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tls-key-file: " + e.getMessage(), e);
        }
        try {
            return ServerTls.of(chain, key);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--tls-key-file " + keyFile + " does not go with --tls-cert-file " + certFile + ": "
                            + e.getMessage(),
                    e);
        }
    }
}
