package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** A real server on 127.0.0.1 asked by dnsjava's real resolver, over UDP and TCP. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsServerTest {
    private static final InMemorySource SOURCE = new InMemorySource();
    private static DnsServer server;

    @BeforeAll
    static void start() {
        SOURCE.put(
                "public",
                "DEFAULT_GROUP",
                "orders",
                List.of(
                        DnsTarget.serving("127.0.0.1", 8080, 1.0),
                        DnsTarget.serving("127.0.0.2", 8081, 2.0),
                        DnsTarget.serving("127.0.0.3", 8082, 0.5),
                        new DnsTarget("127.0.0.4", 8080, 1.0, false, true), // unhealthy
                        new DnsTarget("127.0.0.5", 8080, 1.0, true, false), // disabled
                        DnsTarget.serving("127.0.0.6", 8080, 0))); // weight 0: no traffic
        SOURCE.put(
                "public", "DEFAULT_GROUP", "nobody-home", List.of(new DnsTarget("127.0.1.1", 8080, 1.0, false, true)));
        SOURCE.put(
                "dev",
                "pay",
                "Gateway",
                List.of(
                        DnsTarget.serving("2001:db8::1", 9000, 1.0),
                        DnsTarget.serving("127.0.2.1", 9000, 1.0),
                        DnsTarget.serving("gw.example.net", 9000, 1.0)));
        List<DnsTarget> many = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(DnsTarget.serving("127.1.0." + i, 7000 + i, 1.0));
        }
        SOURCE.put("public", "DEFAULT_GROUP", "big", many);
        SOURCE.put("public", "DEFAULT_GROUP", "broken", List.of());
        DnsRecordSource source = (ns, group, service) -> {
            if (service.equals("broken")) {
                throw new IllegalStateException("registry not ready");
            }
            return SOURCE.instances(ns, group, service);
        };
        server = new DnsServer(DnsServerSettings.defaults().withAddress("127.0.0.1", 0), source).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static SimpleResolver resolver(boolean tcp) {
        SimpleResolver r = new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port()));
        r.setTCP(tcp);
        r.setTimeout(Duration.ofSeconds(5));
        return r;
    }

    private static Message ask(String name, int type, boolean tcp) throws IOException {
        return ask(resolver(tcp), name, type);
    }

    private static Message ask(SimpleResolver resolver, String name, int type) throws IOException {
        return resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN)));
    }

    private static Set<String> addresses(Message m) {
        return m.getSection(Section.ANSWER).stream()
                .map(r -> r instanceof ARecord a
                        ? a.getAddress().getHostAddress()
                        : ((AAAARecord) r).getAddress().getHostAddress())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void aQueryAnswersTheServingInstancesOverUdpAndTcp() throws IOException {
        for (boolean tcp : new boolean[] {false, true}) {
            Message m = ask("orders.DEFAULT_GROUP.public.lodestar.", Type.A, tcp);
            assertEquals(Rcode.NOERROR, m.getRcode());
            assertTrue(m.getHeader().getFlag(Flags.AA), "authoritative");
            assertEquals(
                    Set.of("127.0.0.1", "127.0.0.2", "127.0.0.3"),
                    addresses(m),
                    "unhealthy, disabled and weight-0 instances are left out (tcp=" + tcp + ")");
            m.getSection(Section.ANSWER).forEach(r -> assertEquals(1, r.getTTL()));
        }
    }

    @Test
    void srvAnswersCarryPortWeightAndANamedTargetWithItsAddress() throws IOException {
        Message m = ask("orders.DEFAULT_GROUP.public.lodestar.", Type.SRV, false);
        assertEquals(Rcode.NOERROR, m.getRcode());
        Map<Name, SRVRecord> byTarget = m.getSection(Section.ANSWER).stream()
                .map(r -> (SRVRecord) r)
                .collect(Collectors.toMap(SRVRecord::getTarget, Function.identity()));
        assertEquals(3, byTarget.size());
        Name target1 = Name.fromString("127-0-0-1-8080.orders.DEFAULT_GROUP.public.lodestar.");
        Name target2 = Name.fromString("127-0-0-2-8081.orders.DEFAULT_GROUP.public.lodestar.");
        Name target3 = Name.fromString("127-0-0-3-8082.orders.DEFAULT_GROUP.public.lodestar.");
        assertEquals(8080, byTarget.get(target1).getPort());
        assertEquals(0, byTarget.get(target1).getPriority());
        // Nacos weights 1 : 2 : 0.5, scaled so the heaviest gets 65535
        assertEquals(32768, byTarget.get(target1).getWeight());
        assertEquals(65535, byTarget.get(target2).getWeight());
        assertEquals(16384, byTarget.get(target3).getWeight());

        Map<Name, String> glue = m.getSection(Section.ADDITIONAL).stream()
                .filter(r -> r instanceof ARecord)
                .collect(Collectors.toMap(
                        Record::getName, r -> ((ARecord) r).getAddress().getHostAddress()));
        assertEquals(Map.of(target1, "127.0.0.1", target2, "127.0.0.2", target3, "127.0.0.3"), glue);

        Message target = ask(target2.toString(), Type.A, false);
        assertEquals(Set.of("127.0.0.2"), addresses(target), "an SRV target answers its own A query");
        assertEquals(
                Rcode.NXDOMAIN,
                ask("127-0-0-4-8080.orders.DEFAULT_GROUP.public.lodestar.", Type.A, false)
                        .getRcode(),
                "the target name of an unhealthy instance does not exist");
    }

    @Test
    void theRfc2782SrvNameFormWorksToo() throws IOException {
        Message m = ask("_http._tcp.orders.DEFAULT_GROUP.public.lodestar.", Type.SRV, false);
        assertEquals(3, m.getSection(Section.ANSWER).size());
        assertEquals(
                Name.fromString("127-0-0-1-8080.orders.DEFAULT_GROUP.public.lodestar."),
                m.getSection(Section.ANSWER).stream()
                        .map(r -> ((SRVRecord) r).getTarget())
                        .min(Comparator.naturalOrder())
                        .orElseThrow());
        Message a = ask("_http._tcp.orders.DEFAULT_GROUP.public.lodestar.", Type.A, false);
        assertEquals(Rcode.NOERROR, a.getRcode());
        assertEquals(List.of(), a.getSection(Section.ANSWER), "that form names SRV records only");
    }

    @Test
    void ipv6InstancesAnswerAaaaAndHostNamesOnlySrv() throws IOException {
        assertEquals(Set.of("2001:db8:0:0:0:0:0:1"), addresses(ask("gateway.pay.dev.lodestar.", Type.AAAA, false)));
        assertEquals(Set.of("127.0.2.1"), addresses(ask("gateway.pay.dev.lodestar.", Type.A, true)));

        Message srv = ask("gateway.pay.dev.lodestar.", Type.SRV, false);
        Set<String> targets = srv.getSection(Section.ANSWER).stream()
                .map(r -> ((SRVRecord) r).getTarget().toString())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(
                Set.of(
                        "127-0-2-1-9000.gateway.pay.dev.lodestar.",
                        "2001-db8--1-9000.gateway.pay.dev.lodestar.",
                        "gw.example.net."),
                targets);
        assertTrue(
                srv.getSection(Section.ADDITIONAL).stream().anyMatch(r -> r instanceof AAAARecord),
                "the IPv6 target's address comes along");
        assertEquals(
                Set.of("2001:db8:0:0:0:0:0:1"),
                addresses(ask("2001-db8--1-9000.gateway.pay.dev.lodestar.", Type.AAAA, false)));
    }

    @Test
    void labelsMatchIgnoringCaseAndTheAnswerKeepsTheAskedCase() throws IOException {
        Message m = ask("ORDERS.default_group.PUBLIC.Lodestar.", Type.A, false);
        assertEquals(3, m.getSection(Section.ANSWER).size());
        assertEquals(
                "ORDERS.default_group.PUBLIC.Lodestar.",
                m.getSection(Section.ANSWER).get(0).getName().toString());
        assertEquals(
                3,
                ask("GATEWAY.PAY.DEV.lodestar.", Type.SRV, true)
                        .getSection(Section.ANSWER)
                        .size(),
                "the source matched 'Gateway' ignoring case");
    }

    @Test
    void anUnknownServiceIsNxdomainAndAKnownOneWithNoneServingIsNoData() throws IOException {
        Message unknown = ask("nosuch.DEFAULT_GROUP.public.lodestar.", Type.A, false);
        assertEquals(Rcode.NXDOMAIN, unknown.getRcode());
        assertTrue(unknown.getSection(Section.AUTHORITY).get(0) instanceof SOARecord, "negative answers carry the SOA");
        assertEquals(
                1,
                ((SOARecord) unknown.getSection(Section.AUTHORITY).get(0)).getMinimum(),
                "absence is cached no longer than the TTL");

        Message none = ask("nobody-home.DEFAULT_GROUP.public.lodestar.", Type.A, false);
        assertEquals(Rcode.NOERROR, none.getRcode());
        assertEquals(List.of(), none.getSection(Section.ANSWER));
        Message noSrv = ask("nobody-home.DEFAULT_GROUP.public.lodestar.", Type.SRV, true);
        assertEquals(Rcode.NOERROR, noSrv.getRcode());
        assertEquals(List.of(), noSrv.getSection(Section.ANSWER));

        Message otherType = ask("orders.DEFAULT_GROUP.public.lodestar.", Type.TXT, false);
        assertEquals(Rcode.NOERROR, otherType.getRcode());
        assertEquals(List.of(), otherType.getSection(Section.ANSWER));
        Message v6OfV4Only = ask("orders.DEFAULT_GROUP.public.lodestar.", Type.AAAA, false);
        assertEquals(Rcode.NOERROR, v6OfV4Only.getRcode());
        assertEquals(List.of(), v6OfV4Only.getSection(Section.ANSWER));
    }

    @Test
    void theZoneApexAndItsNamespaceAndGroupNamesExistWithoutAddresses() throws IOException {
        Message apex = ask("lodestar.", Type.SOA, false);
        assertEquals(Rcode.NOERROR, apex.getRcode());
        assertTrue(apex.getSection(Section.ANSWER).get(0) instanceof SOARecord);
        for (String name : List.of("public.lodestar.", "DEFAULT_GROUP.public.lodestar.")) {
            Message m = ask(name, Type.A, false);
            assertEquals(Rcode.NOERROR, m.getRcode(), name);
            assertEquals(List.of(), m.getSection(Section.ANSWER), name);
        }
        assertEquals(Rcode.NXDOMAIN, ask("a.b.c.d.e.f.lodestar.", Type.A, false).getRcode());
    }

    @Test
    void namesOutsideTheZoneAreRefused() throws IOException {
        for (boolean tcp : new boolean[] {false, true}) {
            Message m = ask("example.com.", Type.A, tcp);
            assertEquals(Rcode.REFUSED, m.getRcode());
            assertFalse(m.getHeader().getFlag(Flags.AA));
            assertEquals(List.of(), m.getSection(Section.ANSWER));
        }
        assertEquals(
                Rcode.REFUSED,
                ask("orders.DEFAULT_GROUP.public.lodestar.example.", Type.A, false)
                        .getRcode());
    }

    @Test
    void aSourceThatThrowsIsServfail() throws IOException {
        assertEquals(
                Rcode.SERVFAIL,
                ask("broken.DEFAULT_GROUP.public.lodestar.", Type.A, false).getRcode());
        assertEquals(
                Rcode.NOERROR,
                ask("orders.DEFAULT_GROUP.public.lodestar.", Type.A, false).getRcode());
    }

    @Test
    void aLargeAnswerIsTruncatedOverUdpAndCompleteOverTcp() throws IOException {
        SimpleResolver plainUdp = resolver(false);
        plainUdp.setEDNS(null); // no EDNS: 512 bytes at most
        plainUdp.setIgnoreTruncation(true);
        Message truncated = ask(plainUdp, "big.DEFAULT_GROUP.public.lodestar.", Type.A);
        assertTrue(truncated.getHeader().getFlag(Flags.TC), "TC set");
        assertTrue(truncated.numBytes() <= 512, truncated.numBytes() + " bytes");

        SimpleResolver edns = resolver(false);
        edns.setEDNS(new OPTRecord(4096, 0, 0, 0));
        edns.setIgnoreTruncation(true);
        Message ednsTruncated = ask(edns, "big.DEFAULT_GROUP.public.lodestar.", Type.SRV);
        assertTrue(ednsTruncated.getHeader().getFlag(Flags.TC), "TC set");
        assertTrue(
                ednsTruncated.numBytes() <= DnsServerSettings.DEFAULT_MAX_UDP_PAYLOAD,
                "a client's EDNS size is capped by the server's: " + ednsTruncated.numBytes() + " bytes");
        assertEquals(
                DnsServerSettings.DEFAULT_MAX_UDP_PAYLOAD,
                ednsTruncated.getOPT().getPayloadSize());

        // an ordinary resolver sees TC and asks again over TCP
        Message full = ask("big.DEFAULT_GROUP.public.lodestar.", Type.A, false);
        assertFalse(full.getHeader().getFlag(Flags.TC));
        assertEquals(100, addresses(full).size());
        Message fullSrv = ask("big.DEFAULT_GROUP.public.lodestar.", Type.SRV, false);
        assertEquals(100, fullSrv.getSection(Section.ANSWER).size());
        assertEquals(
                100,
                fullSrv.getSection(Section.ADDITIONAL).stream()
                        .filter(r -> r instanceof ARecord)
                        .count());
    }

    @Test
    void anEdnsVersionAboveZeroIsBadvers() throws IOException {
        Message query = Message.newQuery(
                Record.newRecord(Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN));
        query.addRecord(new OPTRecord(1232, 0, 1, 0), Section.ADDITIONAL);
        assertEquals(Rcode.BADVERS, resolver(false).send(query).getRcode());
    }

    @Test
    void garbageOverUdpIsAnsweredFormerrOrDroppedAndTheServerCarriesOn() throws IOException {
        try (DatagramSocket client = new DatagramSocket()) {
            client.setSoTimeout(2_000);
            InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.port());
            // a header (id 0x1234, a query) claiming one question that is not there
            byte[] truncatedQuestion = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'o', 'r'};
            client.send(new DatagramPacket(truncatedQuestion, truncatedQuestion.length, to));
            Message formErr = receive(client);
            assertEquals(0x1234, formErr.getHeader().getID());
            assertEquals(Rcode.FORMERR, formErr.getRcode());

            Random random = new Random(42);
            for (int size : new int[] {1, 5, 11, 12, 100, 511, 4000, 9000}) {
                byte[] noise = new byte[size];
                random.nextBytes(noise);
                if (size > 2) {
                    noise[2] &= 0x7f; // QR clear, so they are answered (mostly FORMERR) rather than dropped
                }
                client.send(new DatagramPacket(noise, noise.length, to));
            }
            // a packet with QR set is a response: never answered, lest two servers echo each other
            byte[] response = Message.newQuery(Record.newRecord(
                            Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN))
                    .toWire();
            response[2] |= (byte) 0x80;
            response[0] = 0x55;
            client.send(new DatagramPacket(response, response.length, to));
            drainUntilQuiet(client, 0x55);
        }
        assertEquals(
                3,
                ask("orders.DEFAULT_GROUP.public.lodestar.", Type.A, false)
                        .getSection(Section.ANSWER)
                        .size());
    }

    private static Message receive(DatagramSocket client) throws IOException {
        byte[] buffer = new byte[4096];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        client.receive(packet);
        return new Message(java.util.Arrays.copyOf(buffer, packet.getLength()));
    }

    /** Reads answers to the noise until none comes for half a second; none may answer the QR packet {@code id}. */
    private static void drainUntilQuiet(DatagramSocket client, int id) throws IOException {
        client.setSoTimeout(500);
        while (true) {
            byte[] buffer = new byte[4096];
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try {
                client.receive(packet);
            } catch (SocketTimeoutException e) {
                return;
            }
            assertTrue(packet.getLength() >= 12);
            int answeredId = ((buffer[0] & 0xff) << 8) | (buffer[1] & 0xff);
            assertTrue(answeredId != id, "the QR packet was answered");
            // noise that happens to parse (dnsjava is lenient with a TC-flagged message) may get
            // NOTIMP for its opcode or another rcode; what matters is an answer or none, and no crash
            assertTrue((buffer[2] & 0x80) != 0, "answers have QR set");
        }
    }

    @Test
    void garbageOverTcpIsAnsweredFormerrAndTheServerCarriesOn() throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.setSoTimeout(5_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] noise = new byte[40];
            new Random(7).nextBytes(noise);
            noise[0] = 0x42;
            noise[1] = 0x42;
            noise[2] = 0x00; // a query with opcode 0 ...
            noise[4] = 0x00;
            noise[5] = 0x05; // ... claiming five questions it does not hold
            out.writeShort(noise.length);
            out.write(noise);
            out.flush();
            byte[] answer = new byte[in.readUnsignedShort()];
            in.readFully(answer);
            Message m = new Message(answer);
            assertEquals(0x4242, m.getHeader().getID());
            assertEquals(Rcode.FORMERR, m.getRcode());

            // the same connection still answers a proper query
            byte[] query = Message.newQuery(Record.newRecord(
                            Name.fromString("orders.DEFAULT_GROUP.public.lodestar."), Type.A, DClass.IN))
                    .toWire();
            out.writeShort(query.length);
            out.write(query);
            out.flush();
            byte[] second = new byte[in.readUnsignedShort()];
            in.readFully(second);
            assertEquals(3, new Message(second).getSection(Section.ANSWER).size());

            // a frame shorter than it claims, then the client goes away
            out.writeShort(500);
            out.write(new byte[10]);
            out.flush();
        }
        assertEquals(
                3,
                ask("orders.DEFAULT_GROUP.public.lodestar.", Type.A, true)
                        .getSection(Section.ANSWER)
                        .size());
    }

    @Test
    void aStartedPortIsTakenAndFreedOnClose() {
        DnsServer other = new DnsServer(DnsServerSettings.defaults().withAddress("127.0.0.1", 0), SOURCE).start();
        int port = other.port();
        DnsServer clash = new DnsServer(DnsServerSettings.defaults().withAddress("127.0.0.1", port), SOURCE);
        assertThrows(java.io.UncheckedIOException.class, clash::start);
        clash.close();
        other.close();
        DnsServer again = new DnsServer(DnsServerSettings.defaults().withAddress("127.0.0.1", port), SOURCE).start();
        again.close();
    }
}
