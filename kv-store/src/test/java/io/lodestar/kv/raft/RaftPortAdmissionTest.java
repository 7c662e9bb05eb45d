package io.lodestar.kv.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.lodestar.kv.RaftPortSettings;
import io.lodestar.kv.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Raft port before the handshake: anyone can reach it, so a stranger's connection is one of a
 * bounded few, lives only until the handshake deadline, and cannot make the node buffer a long
 * frame. Members, once proved, are bounded by none of it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RaftPortAdmissionTest {
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    private final List<Socket> sockets = new ArrayList<>();
    private final List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void closeSockets() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }

    @Test
    void aStrangersLongFrameIsCutOffAtItsHeaderAndMembersCarryOn() throws Exception {
        try (TestCluster c = TestCluster.start(dir, 3)) {
            int leader = c.awaitLeader();
            Socket stranger = connect("127.0.0.1", c.peer(leader));
            OutputStream out = stranger.getOutputStream();
            out.write(requestHeader(100 << 20));
            long written = 0;
            byte[] chunk = new byte[64 << 10];
            try {
                while (written < 100L << 20) {
                    out.write(chunk);
                    written += chunk.length;
                }
                fail("the node read a 100 MiB frame from a connection that never proved the secret");
            } catch (IOException closed) {
                // what a refusing node does: it closed the connection
            }
            assertTrue(written < 16L << 20, "the node took " + written + " bytes of the frame before closing");

            // a member's frames are not bounded: a value far above the stranger's bound replicates
            String large = "x".repeat(2 << 20);
            assertTrue(c.put(leader, "large", large).succeeded());
            for (int i = 0; i < 3; i++) {
                int node = i;
                Await.until("node " + i + " to hold the large value", () -> large.equals(c.value(node, "large")));
            }
        }
    }

    @Test
    void strangersHoldABoundedShareOfConnectionsUntilTheDeadline() throws Exception {
        try (TestCluster c = TestCluster.start(
                dir, 1, cfg -> cfg.withRaftPortSettings(new RaftPortSettings(3, 2, DEADLINE, null, refused::add)))) {
            c.awaitLeader();
            String port = c.peer(0);
            Socket a1 = connect("127.0.0.1", port);
            Socket a2 = connect("127.0.0.1", port);
            assertOpen(a1);
            assertOpen(a2);
            assertClosedSoon(connect("127.0.0.1", port), "a third connection from one address");
            Socket b1 = connect("127.0.0.2", port);
            assertOpen(b1);
            assertClosedSoon(connect("127.0.0.3", port), "a fourth connection on the node");

            for (Socket s : List.of(a1, a2, b1)) {
                assertClosedSoon(s, "a connection past the handshake deadline");
            }
            assertOpen(connect("127.0.0.3", port)); // their slots are free again
            assertEquals(
                    List.of(RaftPortSettings.UNPROVEN_PER_ADDRESS_LIMIT, RaftPortSettings.UNPROVEN_LIMIT), refused);
            assertTrue(c.put(0, "k", "v").succeeded(), "the node serves on");
        }
    }

    private Socket connect(String from, String hostPort) throws IOException {
        String[] hp = hostPort.split(":");
        Socket s = new Socket();
        sockets.add(s);
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])), 5000);
        return s;
    }

    /** Bolt protocol 2, version 1, a request: the 24-byte header declaring {@code contentLength}. */
    private static byte[] requestHeader(int contentLength) {
        return ByteBuffer.allocate(24)
                .put((byte) 2) // protocol
                .put((byte) 1) // protocol version
                .put((byte) 1) // request
                .putShort((short) 1) // rpc request command
                .put((byte) 1) // command version
                .putInt(7) // request id
                .put((byte) 1) // hessian
                .put((byte) 0) // no switches
                .putInt(3000) // timeout
                .putShort((short) 0) // class name length
                .putShort((short) 0) // header length
                .putInt(contentLength)
                .array();
    }

    private static void assertOpen(Socket s) throws IOException {
        s.setSoTimeout(300);
        try {
            int read = s.getInputStream().read();
            fail("expected an open, silent connection, read " + read);
        } catch (SocketTimeoutException stillOpen) {
            // open, and the node waits for the handshake
        }
    }

    private static void assertClosedSoon(Socket s, String what) throws IOException {
        s.setSoTimeout((int) DEADLINE.multipliedBy(3).toMillis());
        InputStream in = s.getInputStream();
        try {
            assertEquals(-1, in.read(), what + " sent something");
        } catch (SocketTimeoutException open) {
            fail(what + " is still open");
        } catch (IOException reset) {
            assertFalse(s.isClosed(), what); // a reset is a close too
        }
    }
}
