package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** DNS over UDP answers one source network at most so many times a second; TCP is not limited. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsUdpRateTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aNetworkGetsItsBurstThenItsRateAndOthersTheirOwn() throws Exception {
        UdpAnswerRate rate = new UdpAnswerRate(10);
        InetAddress a = InetAddress.getByName("10.1.2.3");
        InetAddress sameNetwork = InetAddress.getByName("10.1.2.200");
        InetAddress other = InetAddress.getByName("10.9.9.9");
        long t = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            assertTrue(rate.allow(i % 2 == 0 ? a : sameNetwork, t), "answer " + i + " of the burst");
        }
        assertFalse(rate.allow(a, t), "past the burst");
        assertFalse(rate.allow(sameNetwork, t), "the /24 shares it");
        assertTrue(rate.allow(other, t), "another network has its own");
        assertFalse(rate.allow(a, t + SECOND / 20), "half a token refilled is not one");
        assertTrue(rate.allow(a, t + SECOND / 10), "one token a tenth of a second later");
        assertFalse(rate.allow(a, t + SECOND / 10));
        for (int i = 0; i < 10; i++) {
            assertTrue(rate.allow(a, t + 5 * SECOND), "full again, and no more than the burst: " + i);
        }
        assertFalse(rate.allow(a, t + 5 * SECOND));
        UdpAnswerRate unlimited = new UdpAnswerRate(0);
        for (int i = 0; i < 10_000; i++) {
            assertTrue(unlimited.allow(a, t));
        }
    }

    @Test
    void aFloodOverUdpIsAnsweredAtTheRateAndTcpStillAnswers() throws Exception {
        InMemorySource source = new InMemorySource()
                .put("public", "DEFAULT_GROUP", "orders", List.of(DnsTarget.serving("127.0.0.1", 80, 1)));
        AtomicInteger limited = new AtomicInteger();
        try (DnsServer server = new DnsServer(
                                DnsServerSettings.defaults()
                                        .withAddress("127.0.0.1", 0)
                                        .withUdpAnswersPerSecond(5),
                                source,
                                limited::incrementAndGet)
                        .start();
                DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout(500);
            byte[] query = Message.newQuery(Record.newRecord(
                            Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN))
                    .toWire();
            InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port());
            long started = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                client.send(new DatagramPacket(query, query.length, to));
            }
            int answers = 0;
            byte[] buffer = new byte[2048];
            try {
                while (true) {
                    client.receive(new DatagramPacket(buffer, buffer.length));
                    answers++;
                }
            } catch (SocketTimeoutException quiet) {
                // every answer that will come has come
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            assertTrue(answers >= 5, "the burst is answered: " + answers);
            assertTrue(answers <= 5 + Math.ceil(5 * seconds), answers + " answers in " + seconds + " s");
            assertEquals(50 - answers, limited.get(), "each query left unanswered is counted");

            SimpleResolver tcp = new SimpleResolver(to);
            tcp.setTCP(true);
            tcp.setTimeout(Duration.ofSeconds(5));
            for (int i = 0; i < 20; i++) {
                Message answer = tcp.send(Message.newQuery(
                        Record.newRecord(Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN)));
                assertEquals(Rcode.NOERROR, answer.getRcode());
            }
        }
    }
}
