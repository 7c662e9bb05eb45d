package io.lodestar.api.cli;

import io.lodestar.api.tls.PeerCertificates;
import io.lodestar.api.tls.PemFiles;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --peer-cert-file} and its companions: TLS on the Raft port, between members. */
final class PeerTlsOptions {
    @Option(
            names = "--peer-cert-file",
            paramLabel = "PEM",
            description = "This member's certificate chain (PEM, its own first). With --peer-key-file and"
                    + " --peer-trusted-ca-file the Raft port (replication and the node-to-node channel) speaks"
                    + " TLS only; every member must then have it. Read at start only.")
    Path certFile;

    @Option(
            names = "--peer-key-file",
            paramLabel = "PEM",
            description = "The member certificate's private key (PEM, not encrypted), readable by its owner only.")
    Path keyFile;

    @Option(
            names = "--peer-trusted-ca-file",
            paramLabel = "PEM",
            description = "The certificates members' chains must lead to (the cluster's CA).")
    Path trustedCaFile;

    @Option(
            names = "--peer-client-cert-auth",
            arity = "0..1",
            paramLabel = "true|false",
            description = "Refuse a connection to the Raft port that shows no certificate leading to"
                    + " --peer-trusted-ca-file (mutual TLS). Members still prove the cluster secret."
                    + " --peer-client-cert-auth=false turns off what the settings file turned on.")
    boolean clientCertAuth;

    /** The member's TLS, or null when none of the files is given; an error names the option at fault. */
    PeerCertificates load() {
        if (certFile == null && keyFile == null && trustedCaFile == null) {
            if (clientCertAuth) {
                throw new IllegalArgumentException("--peer-client-cert-auth needs --peer-cert-file, --peer-key-file"
                        + " and --peer-trusted-ca-file");
            }
            return null;
        }
        if (certFile == null || keyFile == null || trustedCaFile == null) {
            throw new IllegalArgumentException("--peer-cert-file, --peer-key-file and --peer-trusted-ca-file go"
                    + " together: give all three, or none for a Raft port without TLS");
        }
        List<X509Certificate> chain = read("--peer-cert-file", () -> PemFiles.certificates(certFile));
        List<X509Certificate> trusted = read("--peer-trusted-ca-file", () -> PemFiles.certificates(trustedCaFile));
        PrivateKey key = read("--peer-key-file", () -> {
            OwnerOnlyFiles.check(keyFile);
            return PemFiles.privateKey(keyFile);
        });
        try {
            return PeerCertificates.of(chain, key, trusted, clientCertAuth);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--peer-key-file " + keyFile + " does not go with --peer-cert-file " + certFile + ": "
                            + e.getMessage(),
                    e);
        }
    }

    private interface Reading<T> {
        T read();
    }

    private static <T> T read(String option, Reading<T> reading) {
        try {
            return reading.read();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
        }
    }
}
