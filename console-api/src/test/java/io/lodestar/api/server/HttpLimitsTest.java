package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP limits hold before authentication, against raw sockets doing what no client should:
 * bodies past the size limit with and without a length, more connections than one address may
 * hold, and bodies promised and never sent. Meanwhile another address is served at once. The
 * node runs with authentication on, so every request here is one the node has not authenticated.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpLimitsTest {
    private static final int BODY_LIMIT = 64 << 10;
    private static final int CONNECTIONS_PER_ADDRESS = 20;
    private static final int THREADS_PER_ADDRESS = 2;
    /** The other client address: every raw socket that misbehaves here comes from it. */
    private static final String ATTACKER = "127.0.0.2";

    @TempDir
    static Path dir;

    LodestarServer server;
    int port;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    void start() {
        port = FreePorts.next();
        Limits limits = Limits.defaults()
                .with(Limit.HTTP_BODY_BYTES, BODY_LIMIT)
                .with(Limit.HTTP_CONNECTIONS_PER_ADDRESS, CONNECTIONS_PER_ADDRESS)
                .with(Limit.HTTP_THREADS_PER_ADDRESS, THREADS_PER_ADDRESS);
        server = LodestarServer.start(TestSettings.standalone(dir, port, -1, true, limits));
        Await.until("ready", () -> status("/nacos/v1/console/health/readiness") == 200);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private int status(String path) throws IOException, InterruptedException {
        return http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private Socket connectFrom(String address) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** The status line of the answer on {@code s}, read on another thread while the caller writes. */
    private static CompletableFuture<String> statusLine(Socket s) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1))
                        .readLine();
            } catch (IOException e) {
                return "failed: " + e;
            }
        });
    }

    private void servesOthers() throws Exception {
        long t0 = System.nanoTime();
        assertEquals(200, status("/nacos/v1/console/health/readiness"));
        assertEquals(403, status("/nacos/v1/cs/configs?dataId=d&group=g"), "an unauthenticated read is refused");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 2000, "another address is answered at once, took " + ms + " ms");
    }

    @Test
    void aChunkedBodyPastTheLimitIsAnswered413AndItsConnectionClosed() throws Exception {
        try (Socket s = connectFrom(ATTACKER)) {
            CompletableFuture<String> answer = untilClosed(s);
            OutputStream out = s.getOutputStream();
            out.write(("POST /nacos/v1/cs/configs HTTP/1.1\r\nHost: x\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            byte[] chunk = ("2000\r\n" + "a".repeat(0x2000) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            long sent = 0;
            try {
                for (int i = 0; i < 40 * 128 && !answer.isDone(); i++) { // up to 40 MiB
                    out.write(chunk);
                    sent += 0x2000;
                }
            } catch (IOException closedByTheServer) {
                // expected once it has answered
            }
            String all = answer.get(15, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(all.startsWith("HTTP/1.1 413"), "answered " + all + " after " + sent + " bytes");
            // the rest of the body is not read and thrown away: the connection ends with the answer
            assertTrue(
                    all.endsWith("[closed]") || all.endsWith("Connection reset]"),
                    "the connection stayed open after " + sent + " bytes: " + all);
        }
        servesOthers();
    }

    /** Everything answered on {@code s} until the node closes it, then "[closed]"; or what failed. */
    private static CompletableFuture<String> untilClosed(Socket s) {
        return CompletableFuture.supplyAsync(() -> {
            StringBuilder all = new StringBuilder();
            try {
                java.io.InputStream in = s.getInputStream();
                byte[] buffer = new byte[4096];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    all.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                }
                return all.append("[closed]").toString();
            } catch (IOException e) {
                return all.append("[").append(e).append("]").toString();
            }
        });
    }

    @Test
    void aDeclaredLengthPastTheLimitIsAnswered413OnItsFirstBytes() throws Exception {
        try (Socket s = connectFrom(ATTACKER)) {
            // Jetty dispatches a request with a body once its first bytes arrive: no thread waits before
            s.getOutputStream()
                    .write(("POST /nacos/v1/auth/users/login HTTP/1.1\r\nHost: x\r\n"
                                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                                    + (40 << 20) + "\r\n\r\nusername=a")
                            .getBytes(StandardCharsets.ISO_8859_1));
            String line = statusLine(s).get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(line != null && line.startsWith("HTTP/1.1 413"), "answered " + line);
        }
        servesOthers();
    }

    @Test
    void anAddressPastItsConnectionLimitIsClosedWhileOthersAreServed() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS_PER_ADDRESS; i++) {
                held.add(connectFrom(ATTACKER));
            }
            try (Socket extra = connectFrom(ATTACKER)) {
                int read;
                try {
                    read = extra.getInputStream().read();
                } catch (IOException reset) {
                    read = -1;
                }
                assertEquals(-1, read, "a connection past the limit is closed at once");
            }
            servesOthers();
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        Await.until("the address is served again once its connections closed", () -> {
            try (Socket s = connectFrom(ATTACKER)) {
                s.getOutputStream()
                        .write("GET /nacos/v1/console/health/liveness HTTP/1.1\r\nHost: x\r\n\r\n"
                                .getBytes(StandardCharsets.ISO_8859_1));
                String line = statusLine(s).get(5, java.util.concurrent.TimeUnit.SECONDS);
                return line != null && line.startsWith("HTTP/1.1 200");
            }
        });
    }

    /**
     * Bodies promised and never sent hold the threads that read them. One address gets at most its
     * share: its next request is refused at once, and another address is answered at once.
     */
    @Test
    void bodiesPromisedAndNeverSentHoldOnlyTheirAddressesThreads() throws Exception {
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS_PER_ADDRESS / 2; i++) { // 5 times its threads, within its connections
                Socket s = connectFrom(ATTACKER);
                s.getOutputStream()
                        .write(("POST /nacos/v1/cs/configs HTTP/1.1\r\nHost: x\r\n"
                                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n"
                                        + "dataId=a")
                                .getBytes(StandardCharsets.ISO_8859_1));
                slow.add(s);
            }
            servesOthers();
            try (Socket s = connectFrom(ATTACKER)) { // the attacker's own next request is refused
                s.getOutputStream()
                        .write("GET /nacos/v1/console/health/liveness HTTP/1.1\r\nHost: x\r\n\r\n"
                                .getBytes(StandardCharsets.ISO_8859_1));
                String line = statusLine(s).get(5, java.util.concurrent.TimeUnit.SECONDS);
                assertTrue(line != null && line.startsWith("HTTP/1.1 429"), "answered " + line);
            }
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }
}
