package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three packaged servers with {@code --peer-cert-file}, {@code --peer-key-file}, {@code
 * --peer-trusted-ca-file} and {@code --peer-client-cert-auth}: they elect a leader and replicate
 * over mutual TLS, their logs say so, the key store they hand bolt is owner-only, and a plaintext
 * bolt frame on the Raft port gets no answer.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PeerTlsIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path dir;

    @Test
    void membersReplicateOverMutualTlsAndAPlaintextFrameGetsNothing() throws Exception {
        TestCertificate member = TestCertificate.create(dir, "member");
        List<ServerProcess> nodes = cluster.start(
                3,
                "--peer-cert-file",
                member.cert().toString(),
                "--peer-key-file",
                member.key().toString(),
                "--peer-trusted-ca-file",
                member.cert().toString(),
                "--peer-client-cert-auth");
        ServerProcess leader = cluster.leader();
        Http.Response published = Http.postForm(
                leader.httpAddress(),
                "/nacos/v1/cs/configs",
                params("dataId", "over-tls", "group", "G", "content", "replicated"));
        assertEquals(200, published.status(), published.body());
        for (ServerProcess n : nodes) {
            Await.until(
                    n + " to hold the config",
                    () -> "replicated"
                            .equals(Http.get(n.httpAddress(), "/nacos/v1/cs/configs?dataId=over-tls&group=G")
                                    .body()));
            assertTrue(n.logText().contains("(tls, mutual)"), n + " logs the Raft port's TLS");
            Path store = n.dataDir.resolve("tls").resolve("peer.p12");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(store)));
        }

        String[] raft = leader.raftAddress().split(":");
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(raft[0], Integer.parseInt(raft[1])), 5000);
            plain.setSoTimeout(5000);
            // a bolt heartbeat, protocol 2: what a member without TLS would send first
            plain.getOutputStream()
                    .write(new byte[] {2, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 3, -24, 0, 0, 0, 0, 0, 0, 0, 0});
            int read;
            try {
                read = plain.getInputStream().read();
            } catch (IOException reset) {
                read = -1;
            }
            assertEquals(-1, read, "a plaintext frame is answered");
        }
    }
}
