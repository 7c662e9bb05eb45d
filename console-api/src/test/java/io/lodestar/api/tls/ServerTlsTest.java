package io.lodestar.api.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The PEM files operators have are read, checked to belong together, and refused with the file named. */
class ServerTlsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(TestCertificates.KeyForm.class)
    void everyUsualKeyFormIsReadAndServesBothPorts(TestCertificates.KeyForm form) throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", form);
        ServerTls tls = ServerTls.of(PemFiles.certificates(pem.cert()), PemFiles.privateKey(pem.key()));
        assertEquals(pem.certificate(), tls.certificate());
        assertNotNull(tls.forGrpc());
        assertNotNull(tls.forHttp());
    }

    @Test
    void aKeyOfAnotherCertificateIsRefused() throws Exception {
        TestCertificates.Pem one = TestCertificates.write(dir, "one", TestCertificates.KeyForm.RSA_PKCS8);
        TestCertificates.Pem other = TestCertificates.write(dir, "other", TestCertificates.KeyForm.RSA_PKCS1);
        TestCertificates.Pem ec = TestCertificates.write(dir, "ec", TestCertificates.KeyForm.EC_SEC1);
        for (Path key : new Path[] {other.key(), ec.key()}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> ServerTls.of(PemFiles.certificates(one.cert()), PemFiles.privateKey(key)));
            assertTrue(
                    e.getMessage().contains("not the private key of the certificate CN=lodestar-test"), e.getMessage());
        }
    }

    @Test
    void aFileWithoutWhatItShouldHoldIsNamed() throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        IllegalArgumentException noCert =
                assertThrows(IllegalArgumentException.class, () -> PemFiles.certificates(pem.key()));
        assertTrue(noCert.getMessage().startsWith(pem.key() + " holds no PEM certificate"), noCert.getMessage());
        IllegalArgumentException noKey =
                assertThrows(IllegalArgumentException.class, () -> PemFiles.privateKey(pem.cert()));
        assertTrue(noKey.getMessage().startsWith(pem.cert() + " holds no PEM private key"), noKey.getMessage());
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "-----BEGIN CERTIFICATE-----\n!!!\n");
        IllegalArgumentException unreadable =
                assertThrows(IllegalArgumentException.class, () -> PemFiles.certificates(garbage));
        assertTrue(unreadable.getMessage().startsWith("cannot read " + garbage), unreadable.getMessage());
        Path missing = dir.resolve("missing.pem");
        IllegalArgumentException none =
                assertThrows(IllegalArgumentException.class, () -> PemFiles.privateKey(missing));
        assertEquals("cannot read " + missing + ": no such file", none.getMessage());
    }

    @Test
    void anEncryptedKeyIsRefusedWithWhatToDo() throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        Path encrypted = dir.resolve("encrypted.key");
        try (Writer w = Files.newBufferedWriter(encrypted, StandardCharsets.US_ASCII);
                JcaPEMWriter out = new JcaPEMWriter(w)) {
            out.writeObject(new JcaPKCS8Generator(
                    PemFiles.privateKey(pem.key()),
                    new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC)
                            .setProvider(new BouncyCastleProvider()) // the JDK lacks openssl's cipher name
                            .setPassword("passphrase".toCharArray())
                            .build()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PemFiles.privateKey(encrypted));
        assertTrue(e.getMessage().contains("encrypted private key"), e.getMessage());
    }
}
