package io.lodestar.api.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.auth.BrowserOrigins;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A page from another site cannot drive the node through a visitor's browser: not its HTTP routes
 * (the fast ones and Javalin's), not the push channel's WebSocket upgrade. The node runs with
 * authentication off, where such a page could otherwise read and write everything. Requests without
 * an {@code Origin} (every Nacos client, curl) and pages from the node itself or a listed origin
 * are served.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrowserOriginsTest {
    private static final String LISTED = "https://console.example.com";

    @TempDir
    static Path dir;

    LodestarServer server;
    int port;

    @BeforeAll
    void start() {
        port = FreePorts.next();
        ServerSettings s = TestSettings.standalone(dir, port, -1, false);
        server = LodestarServer.start(TestSettings.withBrowserOrigins(s, BrowserOrigins.allowing(List.of(LISTED))));
        Await.until(
                "ready",
                () -> status("GET", "/nacos/v1/console/health/readiness", null).startsWith("200"));
    }

    @AfterAll
    void stop() {
        server.close();
    }

    /** The status line's code and reason, and the body, of one request on its own connection. */
    private String status(String method, String path, String origin) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            StringBuilder head = new StringBuilder(
                    method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n");
            if (origin != null) {
                head.append("Origin: ").append(origin).append("\r\n");
            }
            if (path.startsWith("/lodestar/v1/push")) {
                head.append("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n");
            }
            if (method.equals("POST")) {
                head.append("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n");
            }
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder text = new StringBuilder();
            for (int b; (b = in.read()) != -1; ) {
                text.append((char) b);
                if (text.toString().startsWith("HTTP/1.1 101")
                        && text.toString().endsWith("\r\n\r\n")) {
                    break; // upgraded: the connection stays open
                }
            }
            return text.substring(9);
        }
    }

    private static final String FAST = "/nacos/v1/cs/configs?dataId=d&group=G"; // FastPaths serves it
    private static final String ROUTED = "/nacos/v1/console/namespaces"; // Javalin serves it
    private static final String PUBLISH = "/nacos/v1/cs/configs?dataId=d&group=G&content=pwned";

    @Test
    void aPageFromAnotherSiteIsRefusedOnEveryRouteAndTheUpgrade() throws Exception {
        for (String origin : List.of(
                "https://evil.example", "http://127.0.0.1:" + (port + 1), "null", "http://127.0.0.1.evil.example")) {
            for (String[] request :
                    new String[][] {{"GET", FAST}, {"GET", ROUTED}, {"POST", PUBLISH}, {"GET", "/lodestar/v1/push"}}) {
                String answer = status(request[0], request[1], origin);
                assertTrue(answer.startsWith("403"), origin + " " + request[1] + ": " + answer);
                assertTrue(answer.contains("--allowed-origins") || request[1].startsWith("/lodestar"), answer);
            }
        }
        assertTrue(status("GET", FAST, null).startsWith("404"), "the refused publish wrote nothing");
    }

    @Test
    void theNodesOwnPagesAListedOriginAndNonBrowserClientsAreServed() throws Exception {
        for (String origin : new String[] {null, "http://127.0.0.1:" + port, "HTTP://127.0.0.1:" + port, LISTED}) {
            assertTrue(status("GET", ROUTED, origin).startsWith("200"), String.valueOf(origin));
            assertTrue(status("GET", "/lodestar/v1/push", origin).startsWith("101"), String.valueOf(origin));
        }
    }

    @Test
    void aMalformedAllowedOriginIsRefusedAtStart() {
        for (String bad : List.of("console.example.com", "https://a.example/path", "ftp://a.example", "")) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                    IllegalArgumentException.class, () -> BrowserOrigins.allowing(List.of(bad)), bad);
            assertEquals(true, e.getMessage().contains("scheme://host"), e.getMessage());
        }
    }
}
