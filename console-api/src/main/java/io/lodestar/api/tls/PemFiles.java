package io.lodestar.api.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads PEM files as operators have them: a certificate chain, leaf first, and a private key as
 * PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY},
 * with or without the {@code EC PARAMETERS} block openssl writes before it). Every failure is an
 * {@link IllegalArgumentException} whose message names the file and what is wrong with it.
 */
public final class PemFiles {
    private PemFiles() {}

    /** The certificates in {@code file}, in their order; at least one. */
    public static List<X509Certificate> certificates(Path file) {
        List<X509Certificate> chain = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (PEMParser pem = parser(file)) {
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof X509CertificateHolder holder) {
                    chain.add(converter.getCertificate(holder));
                }
            }
        } catch (IOException | CertificateException e) {
            throw unreadable(file, e);
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }
        return List.copyOf(chain);
    }

    /** The first private key in {@code file}, which must not be encrypted. */
    public static PrivateKey privateKey(Path file) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (PEMParser pem = parser(file)) {
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof PrivateKeyInfo pkcs8) {
                    return converter.getPrivateKey(pkcs8);
                }
                if (o instanceof PEMKeyPair traditional) { // its public half may be absent, and is not needed
                    return converter.getPrivateKey(traditional.getPrivateKeyInfo());
                }
                if (o instanceof PKCS8EncryptedPrivateKeyInfo || o instanceof PEMEncryptedKeyPair) {
                    // a passphrase would have to sit in another file or on the command line: no gain
                    throw new IllegalArgumentException(file + " holds an encrypted private key; give it unencrypted"
                            + " (openssl pkey -in " + file + " -out KEY.pem) in a file only its owner can read");
                }
            }
        } catch (IOException e) {
            throw unreadable(file, e);
        }
        throw new IllegalArgumentException(file + " holds no PEM private key (-----BEGIN PRIVATE KEY-----, "
                + "RSA PRIVATE KEY or EC PRIVATE KEY)");
    }

    private static PEMParser parser(Path file) throws IOException {
        Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        return new PEMParser(reader);
    }

    private static IllegalArgumentException unreadable(Path file, Exception e) {
        String why = e instanceof NoSuchFileException
                ? "no such file"
                : e instanceof AccessDeniedException ? "permission denied" : e.getMessage();
        return new IllegalArgumentException("cannot read " + file + ": " + why, e);
    }
}
