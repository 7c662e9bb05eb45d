package io.lodestar.api.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.tls.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --tls-cert-file} and {@code --tls-key-file}: both or neither, the key owner-only, and every
 * refusal a message naming the option and the file, for the command line to print.
 */
class TlsOptionsTest {
    @TempDir
    Path dir;

    private static TlsOptions parse(String... args) {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command.tls;
    }

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args).load())
                .getMessage();
    }

    @Test
    void neitherIsPlainBothIsTls() throws Exception {
        assertNull(parse().load());
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.EC_SEC1);
        assertNotNull(parse(
                        "--tls-cert-file",
                        pem.cert().toString(),
                        "--tls-key-file",
                        pem.key().toString())
                .load());
    }

    @Test
    void oneWithoutTheOtherIsRefused() throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        for (String[] args : new String[][] {
            {"--tls-cert-file", pem.cert().toString()},
            {"--tls-key-file", pem.key().toString()}
        }) {
            assertTrue(refusal(args).contains("--tls-cert-file and --tls-key-file go together"), args[0]);
        }
    }

    @Test
    void aKeyOthersMayReadIsRefused() throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        Files.setPosixFilePermissions(pem.key(), PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(
                "--tls-key-file: " + pem.key() + " is readable by others (rw-r--r--); chmod 600 it",
                refusal(
                        "--tls-cert-file",
                        pem.cert().toString(),
                        "--tls-key-file",
                        pem.key().toString()));
        Files.setPosixFilePermissions(pem.key(), PosixFilePermissions.fromString("r--------"));
        assertNotNull(parse(
                        "--tls-cert-file",
                        pem.cert().toString(),
                        "--tls-key-file",
                        pem.key().toString())
                .load());
    }

    @Test
    void aMissingFileIsNamed() throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        Path missing = dir.resolve("missing.pem");
        assertEquals(
                "--tls-cert-file: cannot read " + missing + ": no such file",
                refusal(
                        "--tls-cert-file",
                        missing.toString(),
                        "--tls-key-file",
                        pem.key().toString()));
        assertEquals(
                "--tls-key-file: cannot read " + missing + ": no such file",
                refusal("--tls-cert-file", pem.cert().toString(), "--tls-key-file", missing.toString()));
    }

    @Test
    void aKeyOfAnotherCertificateIsRefusedNamingBothFiles() throws Exception {
        TestCertificates.Pem one = TestCertificates.write(dir, "one", TestCertificates.KeyForm.RSA_PKCS8);
        TestCertificates.Pem other = TestCertificates.write(dir, "other", TestCertificates.KeyForm.RSA_PKCS8);
        String message = refusal(
                "--tls-cert-file",
                one.cert().toString(),
                "--tls-key-file",
                other.key().toString());
        assertTrue(
                message.startsWith(
                        "--tls-key-file " + other.key() + " does not go with --tls-cert-file " + one.cert() + ": "),
                message);
    }

    @Test
    void certificateAndKeySwappedAreRefused() throws Exception {
        TestCertificates.Pem pem = TestCertificates.write(dir, "node", TestCertificates.KeyForm.RSA_PKCS8);
        Files.setPosixFilePermissions(pem.cert(), PosixFilePermissions.fromString("rw-------"));
        String message = refusal(
                "--tls-cert-file",
                pem.key().toString(),
                "--tls-key-file",
                pem.cert().toString());
        assertTrue(message.startsWith("--tls-cert-file: " + pem.key() + " holds no PEM certificate"), message);
    }
}
