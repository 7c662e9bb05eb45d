package io.lodestar.api.udp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lodestar.api.limits.Limit;
import io.lodestar.kv.testing.Await;
import io.lodestar.naming.model.ServiceKey;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** UDP push against real sockets on loopback: delivery, acks, resends, supersession, expiry. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UdpPusherTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final ServiceKey SERVICE = ServiceKey.of("public", "G", "orders");
    /** Resends come this far apart in these tests; absences are checked over a few of them. */
    private static final Duration RESEND = Duration.ofMillis(150);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final AtomicInteger version = new AtomicInteger();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** A source whose list names the clusters asked for and a version that each change bumps. */
    private String list(ServiceKey service, String clusters) {
        return "{\"name\":\"" + service.groupedName() + "\",\"clusters\":\"" + clusters + "\",\"version\":"
                + version.get() + "}";
    }

    private UdpPusher pusher(int resends, Duration ttl) throws IOException {
        UdpPusher p = UdpPusher.start("127.0.0.1", this::list, new UdpPushSettings(resends, RESEND, ttl, 1000, 1000));
        open.add(p);
        return p;
    }

    private DatagramSocket client() throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
        open.add(s);
        return s;
    }

    record Push(JsonNode packet, JsonNode data, InetSocketAddress from, byte[] raw) {
        long id() {
            return packet.get("lastRefTime").asLong();
        }
    }

    /** The next datagram within {@code timeout}, or null. */
    private static Push receive(DatagramSocket s, Duration timeout) throws IOException {
        s.setSoTimeout((int) timeout.toMillis());
        DatagramPacket p = new DatagramPacket(new byte[1 << 16], 1 << 16);
        try {
            s.receive(p);
        } catch (SocketTimeoutException e) {
            return null;
        }
        byte[] raw = Arrays.copyOf(p.getData(), p.getLength());
        byte[] plain = raw.length > 2 && raw[0] == (byte) 0x1f && raw[1] == (byte) 0x8b
                ? new GZIPInputStream(new ByteArrayInputStream(raw)).readAllBytes()
                : raw;
        JsonNode packet = JSON.readTree(plain);
        return new Push(
                packet, JSON.readTree(packet.get("data").asText()), (InetSocketAddress) p.getSocketAddress(), raw);
    }

    private static Push expectPush(DatagramSocket s) throws IOException {
        Push p = receive(s, Duration.ofSeconds(5));
        if (p == null) {
            fail("no push within 5 s");
        }
        return p;
    }

    private static void ack(DatagramSocket s, Push p) throws IOException {
        // byte for byte what nacos-client 1.4.7's PushReceiver answers
        byte[] ack = ("{\"type\": \"push-ack\", \"lastRefTime\":\"" + p.id() + "\", \"data\":\"\"}")
                .getBytes(StandardCharsets.UTF_8);
        s.send(new DatagramPacket(ack, ack.length, p.from()));
    }

    @Test
    void aChangeIsPushedAsADomPacketAndAnAckStopsTheResends() throws Exception {
        UdpPusher pusher = pusher(3, Duration.ofMinutes(1));
        DatagramSocket client = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
        version.set(1);
        pusher.serviceChanged(SERVICE);

        Push push = expectPush(client);
        assertEquals("dom", push.packet().get("type").asText());
        assertEquals("G@@orders", push.data().get("name").asText());
        assertEquals(1, push.data().get("version").asInt());
        assertEquals(pusher.localAddress().getPort(), push.from().getPort(), "sent from the push channel");
        ack(client, push);
        // the counters are read one by one, not as a snapshot, so wait for both
        Await.until(
                "the ack counted and nothing pending",
                () -> pusher.stats().acks() == 1 && pusher.stats().pending() == 0);
        Push extra = receive(client, RESEND.multipliedBy(4));
        assertTrue(extra == null, "no resend after the ack: " + (extra == null ? "" : extra.packet()));
    }

    @Test
    void anUnacknowledgedPushIsResentABoundedNumberOfTimesThenGivenUp() throws Exception {
        UdpPusher pusher = pusher(2, Duration.ofMinutes(1));
        DatagramSocket client = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
        pusher.serviceChanged(SERVICE);

        Push first = expectPush(client);
        for (int i = 0; i < 2; i++) {
            Push again = expectPush(client);
            assertArrayEquals(first.raw(), again.raw(), "a resend is the same datagram, same id");
        }
        assertTrue(receive(client, RESEND.multipliedBy(4)) == null, "no third resend");
        Await.until(
                "the push given up",
                () -> pusher.stats().failures() == 1 && pusher.stats().pending() == 0);
        assertEquals(2, pusher.stats().resends());
    }

    @Test
    void anAckFromAnotherAddressDoesNotStopTheResends() throws Exception {
        UdpPusher pusher = pusher(2, Duration.ofMinutes(1));
        DatagramSocket client = client();
        DatagramSocket forger = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
        pusher.serviceChanged(SERVICE);

        Push first = expectPush(client);
        ack(forger, first);
        Push again = expectPush(client);
        assertEquals(first.id(), again.id(), "still resent after a forged ack");
        assertEquals(0, pusher.stats().acks());
    }

    @Test
    void aNewerPushReplacesAnUnacknowledgedOlderOne() throws Exception {
        UdpPusher pusher = pusher(3, Duration.ofMinutes(1));
        DatagramSocket client = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
        version.set(1);
        pusher.serviceChanged(SERVICE);
        Push old = expectPush(client);
        version.set(2);
        pusher.serviceChanged(SERVICE);

        // the old push may be resent until the new one is out, never after it
        Push p;
        do {
            p = expectPush(client);
        } while (p.id() == old.id());
        assertEquals(2, p.data().get("version").asInt());
        Push newest = p;
        for (Push q = receive(client, RESEND.multipliedBy(2)); q != null; q = receive(client, RESEND.multipliedBy(2))) {
            assertNotEquals(old.id(), q.id(), "the replaced push is not resent after the newer one");
            assertEquals(newest.id(), q.id());
        }
    }

    @Test
    void eachSubscriberGetsTheListForItsOwnClusters() throws Exception {
        UdpPusher pusher = pusher(0, Duration.ofMinutes(1));
        DatagramSocket all = client();
        DatagramSocket some = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, all.getLocalPort());
        pusher.subscribe(SERVICE, "a,b", LOOPBACK, some.getLocalPort());
        pusher.serviceChanged(SERVICE);

        assertEquals("", expectPush(all).data().get("clusters").asText());
        assertEquals("a,b", expectPush(some).data().get("clusters").asText());
        assertNotEquals(0, pusher.stats().pushes());
    }

    @Test
    void aLargeListIsGzippedAndAnOtherServiceIsNotPushed() throws Exception {
        version.set(1);
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            big.append("host-").append(i).append(',');
        }
        UdpPusher pusher = UdpPusher.start(
                "127.0.0.1",
                (s, c) -> "{\"hosts\":\"" + big + "\"}",
                new UdpPushSettings(0, RESEND, Duration.ofMinutes(1), 1000, 1000));
        open.add(pusher);
        DatagramSocket client = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
        pusher.serviceChanged(ServiceKey.of("public", "G", "other"));
        assertTrue(receive(client, RESEND.multipliedBy(2)) == null, "a change of another service is not pushed");

        pusher.serviceChanged(SERVICE);
        Push push = expectPush(client);
        assertEquals((byte) 0x1f, push.raw()[0], "gzip magic");
        assertEquals((byte) 0x8b, push.raw()[1], "gzip magic");
        assertEquals(big.toString(), push.data().get("hosts").asText());
    }

    @Test
    void aSubscriberThatStopsPollingExpires() throws Exception {
        UdpPusher pusher = pusher(0, Duration.ofMillis(300));
        DatagramSocket client = client();
        pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
        assertEquals(1, pusher.stats().subscribers());
        Await.until("the subscriber expired", () -> pusher.stats().subscribers() == 0);
        pusher.serviceChanged(SERVICE);
        assertTrue(receive(client, RESEND.multipliedBy(3)) == null, "no push to an expired subscriber");
    }

    @Test
    void pollingAgainRenewsASubscriptionWithoutDuplicatingIt() throws Exception {
        UdpPusher pusher = pusher(0, Duration.ofMillis(400));
        DatagramSocket client = client();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1200);
        while (System.nanoTime() < until) {
            pusher.subscribe(SERVICE, "", LOOPBACK, client.getLocalPort());
            assertEquals(1, pusher.stats().subscribers());
            Thread.sleep(50);
        }
        pusher.serviceChanged(SERVICE);
        expectPush(client);
        assertTrue(receive(client, RESEND.multipliedBy(2)) == null, "one subscription, one push");
    }

    @Test
    void subscriptionsBeyondTheCapAreNotHeld() throws Exception {
        UdpPusher pusher =
                UdpPusher.start("127.0.0.1", this::list, new UdpPushSettings(0, RESEND, Duration.ofMinutes(1), 2, 2));
        open.add(pusher);
        for (int port = 40_000; port < 40_005; port++) {
            pusher.subscribe(SERVICE, "", LOOPBACK, port);
        }
        assertEquals(2, pusher.stats().subscribers());
    }

    /**
     * One address cannot take the room every client shares: past its own cap its further
     * subscriptions are refused (that client polls), while another address is still subscribed,
     * and an expired subscription gives its address its room back.
     */
    @Test
    void oneAddressHoldsAtMostItsShare() throws Exception {
        Duration ttl = Duration.ofMillis(300);
        List<Limit> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        UdpPusher pusher =
                UdpPusher.start("127.0.0.1", this::list, new UdpPushSettings(0, RESEND, ttl, 1000, 3), refused::add);
        open.add(pusher);
        InetAddress other = InetAddress.getByName("127.0.0.2");
        for (int port = 40_000; port < 40_010; port++) {
            pusher.subscribe(SERVICE, "", LOOPBACK, port);
        }
        assertEquals(3, pusher.stats().subscribers());
        assertEquals(7, refused.size());
        assertTrue(refused.stream().allMatch(l -> l == Limit.UDP_SUBSCRIBERS_PER_ADDRESS), refused.toString());
        pusher.subscribe(SERVICE, "", other, 40_000);
        assertEquals(4, pusher.stats().subscribers(), "another address still has its room");
        Await.until("the subscriptions to expire", () -> pusher.stats().subscribers() == 0);
        pusher.subscribe(SERVICE, "", LOOPBACK, 40_100);
        assertEquals(1, pusher.stats().subscribers(), "an expired subscription gave its room back");
    }

    @Test
    void ackParsingAcceptsTheClientsFormAndRejectsOthers() {
        byte[] client =
                "{\"type\": \"push-ack\", \"lastRefTime\":\"42\", \"data\":\"\"}".getBytes(StandardCharsets.UTF_8);
        assertEquals(42, PushPacket.ackedId(client, client.length));
        byte[] number = "{\"type\":\"push-ack\",\"lastRefTime\":43}".getBytes(StandardCharsets.UTF_8);
        assertEquals(43, PushPacket.ackedId(number, number.length));
        for (String bad : List.of(
                "",
                "nonsense",
                "[1]",
                "{\"type\":\"dump-ack\",\"lastRefTime\":\"1\"}",
                "{\"type\":\"push-ack\"}",
                "{\"type\":\"push-ack\",\"lastRefTime\":\"x\"}",
                "{\"type\":\"push-ack\",\"lastRefTime\":1.5}")) {
            byte[] b = bad.getBytes(StandardCharsets.UTF_8);
            assertEquals(-1, PushPacket.ackedId(b, b.length), bad);
        }
    }
}
