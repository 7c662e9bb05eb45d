package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Login throttling through the real login route of a real server with {@code --auth on}. Clients
 * come from distinct loopback addresses (127.0.0.x), so the server sees distinct sources.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoginThrottlingTest {
    @TempDir
    static Path dir;

    AuthServer s;

    @BeforeAll
    void start() throws Exception {
        s = AuthServer.start(dir);
    }

    @AfterAll
    void stop() {
        s.close();
    }

    /** A status line and body, as read off the socket. */
    record Answer(int status, String text) {}

    /** Logs in with a connection from {@code localAddress}. */
    private Answer loginFrom(String localAddress, String username, String password) throws Exception {
        String form = "username=" + URLEncoder.encode(username, StandardCharsets.UTF_8) + "&password="
                + URLEncoder.encode(password, StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(localAddress, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", s.port), 5_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + Auth.LOGIN_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                            + form.length() + "\r\nConnection: close\r\n\r\n" + form)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Answer(Integer.parseInt(text.substring(9, 12)), text);
        }
    }

    private long passwordChecks() throws Exception {
        String metrics = s.get("/metrics", Map.of()).body();
        for (String line : metrics.split("\n")) {
            if (line.startsWith("lodestar_login_password_checks_total ")) {
                return (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1));
            }
        }
        throw new AssertionError("no lodestar_login_password_checks_total in /metrics");
    }

    @Test
    void aStalePasswordAtOneAddressNeverLocksOutTheRightPasswordFromAnother() throws Exception {
        s.user("fleet", "fleet-password");
        // one app instance with last month's password, retrying
        for (int i = 0; i < 3 * LoginThrottle.MAX_FAILURES_PER_NAME_AND_ADDRESS; i++) {
            assertEquals(403, loginFrom("127.0.0.2", "fleet", "stale-password").status());
        }
        Answer throttled = loginFrom("127.0.0.2", "fleet", "stale-password");
        assertTrue(throttled.text().contains("too many failed logins"), throttled.text());

        Answer elsewhere = loginFrom("127.0.0.3", "fleet", "fleet-password");
        assertEquals(200, elsewhere.status(), elsewhere.text());
        assertTrue(elsewhere.text().contains("\"accessToken\""), elsewhere.text());
        Answer otherName = loginFrom("127.0.0.2", "nacos", s.adminPassword);
        assertEquals(200, otherName.status(), "another name at the failing address: " + otherName.text());
    }

    @Test
    void parallelWrongGuessesFromOneAddressCostAtMostTheLimitInPasswordChecks() throws Exception {
        s.user("guessed", "guessed-password");
        long before = passwordChecks();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(24);
        List<Future<Answer>> guesses = new ArrayList<>();
        try {
            for (int i = 0; i < 24; i++) {
                String guess = "guess-number-" + i;
                guesses.add(pool.submit(() -> {
                    go.await();
                    return loginFrom("127.0.0.4", "guessed", guess);
                }));
            }
            go.countDown();
            for (Future<Answer> guess : guesses) {
                Answer a = guess.get(60, TimeUnit.SECONDS);
                assertEquals(403, a.status(), a.text());
            }
        } finally {
            pool.shutdownNow();
        }
        long checked = passwordChecks() - before;
        assertEquals(LoginThrottle.MAX_FAILURES_PER_NAME_AND_ADDRESS, checked, "bcrypt checks for 24 guesses");
        assertEquals(200, loginFrom("127.0.0.5", "guessed", "guessed-password").status());
    }
}
