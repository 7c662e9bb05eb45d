package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** Room for one TCP connection, a short idle timeout: stalled clients are cut off and the server recovers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsTcpLimitsTest {
    private static final Duration IDLE = Duration.ofMillis(400);
    private DnsServer server;

    @BeforeEach
    void start() {
        InMemorySource source = new InMemorySource()
                .put("public", "DEFAULT_GROUP", "orders", List.of(DnsTarget.serving("127.0.0.1", 80, 1)));
        server = new DnsServer(
                        DnsServerSettings.defaults().withAddress("127.0.0.1", 0).withTcp(1, 1, IDLE), source)
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    /**
     * Answers to a TCP query once the server's one connection is free: the server may take a
     * moment to notice the last one closed, and a connection made meanwhile is turned away (by
     * design), so try again until a deadline.
     */
    private int tcpAnswersOnceFree() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return tcpAnswers();
            } catch (IOException turnedAway) {
                if (System.nanoTime() > deadline) {
                    throw turnedAway;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw turnedAway;
                }
            }
        }
    }

    private int tcpAnswers() throws IOException {
        SimpleResolver r = new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
        r.setTCP(true);
        r.setTimeout(Duration.ofSeconds(5));
        Message m = r.send(Message.newQuery(
                Record.newRecord(Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN)));
        return m.getSection(Section.ANSWER).size();
    }

    @Test
    void aSilentClientIsClosedAfterTheIdleTimeout() throws IOException {
        try (Socket silent = connect()) {
            // the server closes it: read sees end of stream (an exception on some stacks), well before our 10 s
            long start = System.nanoTime();
            int read;
            try {
                read = silent.getInputStream().read();
            } catch (IOException reset) {
                read = -1;
            }
            assertEquals(-1, read);
            assertTrue(System.nanoTime() - start >= IDLE.toNanos() / 2, "closed for idleness, not at once");
        }
        assertEquals(1, tcpAnswersOnceFree(), "the only connection is free again");
    }

    @Test
    void aClientThatDripsItsQueryIsCutOffAtTheDeadline() throws IOException {
        try (Socket dripping = connect()) {
            OutputStream out = dripping.getOutputStream();
            InputStream in = dripping.getInputStream();
            out.write(new byte[] {0, 40}); // announces 40 bytes ...
            out.flush();
            boolean cut = false;
            for (int i = 0; i < 40 && !cut; i++) {
                try {
                    out.write(0); // ... and sends one at a time, each well within the read timeout
                    out.flush();
                    dripping.setSoTimeout(IDLE.toMillisPart() / 4);
                    cut = in.read() == -1;
                } catch (java.net.SocketTimeoutException stillOpen) {
                    // no answer yet: keep dripping
                } catch (IOException reset) {
                    cut = true;
                }
            }
            assertTrue(cut, "the server cut the connection before the 40 bytes were in");
        }
        assertEquals(1, tcpAnswersOnceFree());
    }

    @Test
    void aConnectionBeyondTheLimitIsClosedAndTheServerStaysUp() throws IOException {
        try (Socket holder = connect()) {
            // holder takes the one connection; the next is closed at once
            try (Socket extra = connect()) {
                int read;
                try {
                    read = extra.getInputStream().read();
                } catch (IOException reset) {
                    read = -1;
                }
                assertEquals(-1, read);
            }
        }
        assertEquals(1, tcpAnswersOnceFree());
    }
}
