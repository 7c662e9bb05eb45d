package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Slow TCP clients hold only their connections: with dozens of them mid-query (and others that
 * never read their answers), a well-behaved client is answered at once, long before their idle
 * timeout frees anything.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsTcpSlowClientsTest {
    private static final Duration IDLE = Duration.ofSeconds(20);

    @Test
    void aClientIsAnsweredWhileManyOthersStallMidQuery() throws Exception {
        InMemorySource source = new InMemorySource()
                .put("public", "DEFAULT_GROUP", "orders", List.of(DnsTarget.serving("127.0.0.1", 80, 1)));
        byte[] query = Message.newQuery(
                        Record.newRecord(Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN))
                .toWire();
        try (DnsServer server = new DnsServer(
                        DnsServerSettings.defaults().withAddress("127.0.0.1", 0).withTcp(1024, 64, IDLE), source)
                .start()) {
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < 40; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
                    OutputStream out = s.getOutputStream();
                    if (i % 2 == 0) {
                        out.write(new byte[] {0, (byte) query.length, query[0]}); // a query begun, never finished
                    } else {
                        for (int q = 0; q < 200; q++) { // queries whose answers are never read
                            out.write(new byte[] {0, (byte) query.length});
                            out.write(query);
                        }
                    }
                    out.flush();
                    stalled.add(s);
                }
                SimpleResolver r =
                        new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
                r.setTCP(true);
                r.setTimeout(Duration.ofSeconds(2));
                long start = System.nanoTime();
                Message answer = r.send(Message.newQuery(
                        Record.newRecord(Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN)));
                assertEquals(1, answer.getSection(Section.ANSWER).size());
                assertTrue(
                        System.nanoTime() - start < IDLE.toNanos() / 4,
                        "answered without waiting for the stalled clients to time out");
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
            }
        }
    }
}
