package io.lodestar.api.tls;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * Throwaway self-signed certificates for 127.0.0.1 and localhost, made by the test that needs
 * them (none is committed), written as PEM files the way operators have them.
 */
public final class TestCertificates {
    private TestCertificates() {}

    /** How the key file is written: the PEM forms {@link PemFiles} reads. */
    public enum KeyForm {
        /** {@code PRIVATE KEY}, of an RSA key. */
        RSA_PKCS8,
        /** {@code RSA PRIVATE KEY}, as older openssl writes it. */
        RSA_PKCS1,
        /** {@code EC PRIVATE KEY}, of a P-256 key. */
        EC_SEC1
    }

    /** A certificate file, its key file (mode 0600) and the certificate itself. */
    public record Pem(Path cert, Path key, X509Certificate certificate) {}

    /** Writes {@code name}.crt and {@code name}.key into {@code dir}. */
    public static Pem write(Path dir, String name, KeyForm form) throws Exception {
        KeyPair keys = keyPair(form);
        X509Certificate certificate = selfSigned(keys, form == KeyForm.EC_SEC1 ? "SHA256withECDSA" : "SHA256withRSA");
        Path cert = dir.resolve(name + ".crt");
        pem(cert, certificate);
        Path key = dir.resolve(name + ".key");
        Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        pem(
                key,
                switch (form) {
                    case RSA_PKCS8 -> new JcaPKCS8Generator(keys.getPrivate(), null);
                    case RSA_PKCS1 -> keys.getPrivate();
                    case EC_SEC1 -> sec1(keys.getPrivate());
                });
        return new Pem(cert, key, certificate);
    }

    /**
     * The key as openssl writes an {@code EC PRIVATE KEY}: naming its curve, which the PKCS#8 form
     * carries outside the key and a plain conversion (BouncyCastle's writer) drops.
     */
    private static PemObject sec1(PrivateKey key) throws IOException {
        PrivateKeyInfo pkcs8 = PrivateKeyInfo.getInstance(key.getEncoded());
        ECPrivateKey inner = ECPrivateKey.getInstance(pkcs8.parsePrivateKey());
        ECPrivateKey sec1 = new ECPrivateKey(
                256, inner.getKey(), pkcs8.getPrivateKeyAlgorithm().getParameters());
        return new PemObject("EC PRIVATE KEY", sec1.getEncoded());
    }

    private static KeyPair keyPair(KeyForm form) throws GeneralSecurityException {
        if (form == KeyForm.EC_SEC1) {
            KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
            ec.initialize(new ECGenParameterSpec("secp256r1"));
            return ec.generateKeyPair();
        }
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        return rsa.generateKeyPair();
    }

    private static X509Certificate selfSigned(KeyPair keys, String signature)
            throws IOException, OperatorCreationException, GeneralSecurityException {
        X500Name subject = new X500Name("CN=lodestar-test");
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                subject,
                BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofMinutes(5))),
                Date.from(now.plus(Duration.ofDays(1))),
                subject,
                keys.getPublic());
        // clients check the address they dialled against these names
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")
        }));
        return new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder(signature).build(keys.getPrivate())));
    }

    private static void pem(Path file, Object o) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
                JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(o);
        }
    }
}
