package io.lodestar.it;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made by the JDK's keytool for the test that
 * needs it (none is committed), written as the PEM files a server takes: {@code cert} and {@code
 * key} (PKCS#8, mode 0600).
 */
record TestCertificate(Path cert, Path key, X509Certificate certificate) {
    /** Writes {@code name}.crt and {@code name}.key into {@code dir}. */
    static TestCertificate create(Path dir, String name) throws Exception {
        Path store = dir.resolve(name + ".p12");
        String password = "throwaway"; // of a store that lives in the test's directory only
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-validity",
                "2",
                "-dname",
                "CN=lodestar-it",
                "-ext",
                "san=ip:127.0.0.1,dns:localhost", // clients check the address they dialled against these
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                password);
        Process keytool = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + output);
        }
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, password.toCharArray());
        }
        X509Certificate certificate = (X509Certificate) keys.getCertificate(name);
        PrivateKey privateKey = (PrivateKey) keys.getKey(name, password.toCharArray());
        Path cert = Files.writeString(dir.resolve(name + ".crt"), pem("CERTIFICATE", certificate.getEncoded()));
        Path key = Files.createFile(
                dir.resolve(name + ".key"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(key, pem("PRIVATE KEY", privateKey.getEncoded())); // the JDK encodes keys as PKCS#8
        return new TestCertificate(cert, key, certificate);
    }

    /** A TLS context that trusts this certificate only. */
    SSLContext trustingIt() throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("trusted", certificate);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
