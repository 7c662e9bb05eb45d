package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.PeerTls;
import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Members talk TLS on the Raft port when it is configured: they replicate through it, a plaintext
 * connection gets nowhere, and with mutual TLS a client without a trusted certificate is refused
 * in the TLS handshake, before the cluster secret is even asked for.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftPortTlsTest {
    private static final String PASSWORD = "test-key-store-password";

    @TempDir
    Path dir;

    @Test
    void membersReplicateOverMutualTlsAndNothingElseGetsIn() throws Exception {
        Path members = keyStore("members");
        Path stranger = keyStore("stranger");
        PeerTls tls = new PeerTls(members, PASSWORD, true);
        try (TestCluster c = TestCluster.start(
                dir.resolve("cluster"),
                3,
                cfg -> cfg.withRaftPortSettings(cfg.raftPortSettings().withTls(tls)))) {
            int leader = c.awaitLeader();
            assertTrue(c.put(leader, "k", "over tls").succeeded());
            for (int i = 0; i < 3; i++) {
                int node = i;
                Await.until("node " + i + " to hold the value", () -> "over tls".equals(c.value(node, "k")));
            }
            String[] hp = c.peer(leader).split(":");
            InetSocketAddress port = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));

            try (SSLSocket member =
                    (SSLSocket) context(members, true).getSocketFactory().createSocket()) {
                member.connect(port, 5000);
                member.startHandshake(); // a holder of the members' certificate gets as far as the secret
                assertTrue(member.getSession().getProtocol().startsWith("TLSv1."));
            }
            for (SSLContext refused : List.of(context(members, false), context(stranger, true))) {
                try (SSLSocket s = (SSLSocket) refused.getSocketFactory().createSocket()) {
                    s.connect(port, 5000);
                    s.setSoTimeout(5000);
                    // TLS 1.3 reports a refused client certificate at the first read, not the handshake
                    assertThrows(IOException.class, () -> {
                        s.startHandshake();
                        s.getInputStream().read();
                    });
                }
            }
            try (Socket plain = new Socket()) {
                plain.connect(port, 5000);
                plain.setSoTimeout(5000);
                plain.getOutputStream()
                        .write(new byte[] {2, 1, 1, 0, 1, 1, 0, 0, 0, 7, 1, 0, 0, 0, 11, -72, 0, 0, 0, 0});
                plain.getOutputStream().write(new byte[] {0, 0, 0, 0});
                InputStream in = plain.getInputStream();
                int read;
                try {
                    read = in.read();
                } catch (IOException reset) {
                    read = -1;
                }
                assertEquals(-1, read, "a plaintext bolt frame is not answered");
            }
            assertTrue(c.put(leader, "after", "v").succeeded(), "the group carries on");
        }
    }

    /** A fresh PKCS#12 key store holding one self-signed EC key: what keytool makes. */
    private Path keyStore(String name) throws Exception {
        Path file = dir.resolve(name + ".p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        name,
                        "-keyalg",
                        "EC",
                        "-dname",
                        "CN=" + name,
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        file.toString(),
                        "-storepass",
                        PASSWORD)
                .redirectErrorStream(true)
                .start();
        String output = new String(keytool.getInputStream().readAllBytes());
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, output);
        assertTrue(Files.size(file) > 0);
        return file;
    }

    private static SSLContext context(Path keyStore, boolean presentCertificate) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(ks);
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(ks, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(presentCertificate ? keys.getKeyManagers() : null, trust.getTrustManagers(), null);
        return context;
    }
}
