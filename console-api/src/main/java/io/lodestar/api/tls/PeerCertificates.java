package io.lodestar.api.tls;

import io.lodestar.kv.PeerTls;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;

/**
 * What a member shows and trusts on the Raft port: its certificate chain and key, and the
 * certificates (a cluster's CA) its peers' chains must lead to. Read from PEM like the client-facing
 * TLS; handed to the store as the one PKCS#12 file bolt, the port's transport, reads on both ends.
 */
public final class PeerCertificates {
    private final List<X509Certificate> chain;
    private final PrivateKey key;
    private final List<X509Certificate> trusted;
    private final boolean requireMemberCertificates;

    private PeerCertificates(
            List<X509Certificate> chain, PrivateKey key, List<X509Certificate> trusted, boolean mutual) {
        this.chain = chain;
        this.key = key;
        this.trusted = trusted;
        this.requireMemberCertificates = mutual;
    }

    /**
     * Throws {@link IllegalArgumentException} when the key is not the leaf's or no certificate is
     * trusted.
     */
    public static PeerCertificates of(
            List<X509Certificate> chain,
            PrivateKey key,
            List<X509Certificate> trusted,
            boolean requireMemberCertificates) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("no certificate");
        }
        if (trusted.isEmpty()) {
            throw new IllegalArgumentException("no trusted certificate");
        }
        ServerTls.requireKeyOf(chain.get(0), key);
        return new PeerCertificates(List.copyOf(chain), key, List.copyOf(trusted), requireMemberCertificates);
    }

    /** Whether a connecting member must show a trusted certificate too. */
    public boolean requireMemberCertificates() {
        return requireMemberCertificates;
    }

    /**
     * Writes the key store bolt reads to {@code dir}/peer.p12, owner-only, under a password made
     * for this start and kept in memory only; replaces what an earlier start wrote.
     */
    public PeerTls writeKeyStore(Path dir) {
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(randomBytes());
        Path file = dir.resolve("peer.p12");
        try {
            KeyStore store = KeyStore.getInstance(PeerTls.KEY_STORE_TYPE);
            store.load(null, null);
            store.setKeyEntry("member", key, password.toCharArray(), chain.toArray(X509Certificate[]::new));
            for (int i = 0; i < trusted.size(); i++) {
                store.setCertificateEntry("trusted-" + i, trusted.get(i));
            }
            Files.createDirectories(dir);
            Path partial = Files.createTempFile(dir, "peer", ".partial");
            Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString("rw-------"));
            try (OutputStream out = Files.newOutputStream(partial)) {
                store.store(out, password.toCharArray());
            }
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the Raft port's key store " + file, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the Raft port's key store: " + e.getMessage(), e);
        }
        return new PeerTls(file, password, requireMemberCertificates);
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
