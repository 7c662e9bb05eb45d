package io.lodestar.api.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.tls.PeerCertificates;
import io.lodestar.api.tls.TestCertificates;
import io.lodestar.kv.PeerTls;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The Raft port's TLS options: all three files or none, the key owner-only and its certificate's,
 * and what they make: an owner-only PKCS#12 store holding the member's key and what it trusts.
 */
class PeerTlsOptionsTest {
    @TempDir
    Path dir;

    private static PeerTlsOptions parse(String... args) {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command.peerTls;
    }

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args).load())
                .getMessage();
    }

    @Test
    void allThreeMakeAnOwnerOnlyKeyStoreOfTheKeyAndTheTrustedCertificates() throws Exception {
        assertNull(parse().load());
        TestCertificates.Pem member = TestCertificates.write(dir, "member", TestCertificates.KeyForm.EC_SEC1);
        TestCertificates.Pem ca = TestCertificates.write(dir, "ca", TestCertificates.KeyForm.RSA_PKCS8);
        PeerCertificates certificates = parse(
                        "--peer-cert-file",
                        member.cert().toString(),
                        "--peer-key-file",
                        member.key().toString(),
                        "--peer-trusted-ca-file",
                        ca.cert().toString(),
                        "--peer-client-cert-auth")
                .load();
        PeerTls tls = certificates.writeKeyStore(dir.resolve("tls"));
        assertTrue(tls.requireMemberCertificates());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tls.keyStore())));
        KeyStore store = KeyStore.getInstance(PeerTls.KEY_STORE_TYPE);
        try (InputStream in = Files.newInputStream(tls.keyStore())) {
            store.load(in, tls.password().toCharArray());
        }
        assertEquals(member.certificate(), store.getCertificate("member"));
        assertTrue(store.isKeyEntry("member"));
        assertEquals(ca.certificate(), store.getCertificate("trusted-0"));
        assertTrue(!tls.toString().contains(tls.password()), "the password is never printed");
    }

    @Test
    void partialOrMismatchedFilesAreRefusedNamingTheOption() throws Exception {
        TestCertificates.Pem member = TestCertificates.write(dir, "member", TestCertificates.KeyForm.RSA_PKCS8);
        TestCertificates.Pem other = TestCertificates.write(dir, "other", TestCertificates.KeyForm.RSA_PKCS8);
        assertTrue(refusal(
                        "--peer-cert-file",
                        member.cert().toString(),
                        "--peer-key-file",
                        member.key().toString())
                .contains("go together"));
        assertTrue(refusal("--peer-client-cert-auth").contains("--peer-client-cert-auth needs"));
        assertTrue(refusal(
                        "--peer-cert-file", member.cert().toString(),
                        "--peer-key-file", other.key().toString(),
                        "--peer-trusted-ca-file", member.cert().toString())
                .contains("does not go with --peer-cert-file"));
        Files.setPosixFilePermissions(member.key(), PosixFilePermissions.fromString("rw-r--r--"));
        assertTrue(refusal(
                        "--peer-cert-file", member.cert().toString(),
                        "--peer-key-file", member.key().toString(),
                        "--peer-trusted-ca-file", member.cert().toString())
                .startsWith("--peer-key-file: "));
    }
}
