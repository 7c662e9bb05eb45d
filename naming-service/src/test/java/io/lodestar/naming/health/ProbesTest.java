package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link TcpProbe} and {@link HttpProbe} alone, against real sockets on 127.0.0.1. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProbesTest {
    private static InetSocketAddress loopback(int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    private static final ProbeSettings TCP =
            ProbeSettings.tcp().withTiming(Duration.ofMillis(1_000), Duration.ofSeconds(1));

    @Test
    void tcpIsUpWhileSomethingListensAndDownWhenRefused() throws Exception {
        try (TcpProbe probe = new TcpProbe();
                TcpServer server = new TcpServer()) {
            ProbeResult up = probe.probe(loopback(server.port()), TCP).get(5, TimeUnit.SECONDS);
            assertEquals(ProbeResult.Outcome.UP, up.outcome(), up.detail());
            server.stop();
            ProbeResult down = probe.probe(loopback(server.port()), TCP).get(5, TimeUnit.SECONDS);
            assertEquals(ProbeResult.Outcome.DOWN, down.outcome(), down.detail());
        }
    }

    @Test
    void tcpTimesOutWhenTheConnectIsNeverAnswered() throws Exception {
        // a listener that never accepts, with its backlog filled: the kernel drops further SYNs
        try (TcpProbe probe = new TcpProbe();
                ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ProbeSettings quick = TCP.withTiming(Duration.ofMillis(300), Duration.ofSeconds(1));
            ProbeResult last = null;
            for (int i = 0; i < 20; i++) {
                last = probe.probe(loopback(silent.getLocalPort()), quick).get(5, TimeUnit.SECONDS);
                if (last.detail().startsWith("timed out")) {
                    break;
                }
            }
            assertEquals(ProbeResult.down("timed out after 300 ms"), last);
        }
    }

    @Test
    void aClosedProbeAnswersUnknown() throws Exception {
        TcpProbe tcp = new TcpProbe();
        tcp.close();
        assertEquals(
                ProbeResult.Outcome.UNKNOWN,
                tcp.probe(loopback(1), TCP).get(5, TimeUnit.SECONDS).outcome());
        HttpProbe http = new HttpProbe();
        http.close();
        assertEquals(
                ProbeResult.Outcome.UNKNOWN,
                http.probe(loopback(1), ProbeSettings.http("/"))
                        .get(5, TimeUnit.SECONDS)
                        .outcome());
    }

    @Test
    void httpJudgesTheStatus() throws Exception {
        try (HttpProbe probe = new HttpProbe();
                ScriptedHttpServer server = new ScriptedHttpServer()) {
            ProbeSettings s = ProbeSettings.http("/health?deep=true");
            server.answer(200);
            assertEquals(
                    ProbeResult.up("HTTP 200"),
                    probe.probe(loopback(server.port()), s).get(5, TimeUnit.SECONDS));
            server.answer(503);
            assertEquals(
                    ProbeResult.down("HTTP 503"),
                    probe.probe(loopback(server.port()), s).get(5, TimeUnit.SECONDS));
            server.answer(302);
            assertEquals(
                    ProbeResult.down("HTTP 302"),
                    probe.probe(loopback(server.port()), s).get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void httpTimesOutOnASlowAnswer() throws Exception {
        try (HttpProbe probe = new HttpProbe();
                ScriptedHttpServer server = new ScriptedHttpServer()) {
            server.delay(2_000);
            ProbeSettings s = ProbeSettings.http("/health").withTiming(Duration.ofMillis(200), Duration.ofSeconds(1));
            ProbeResult r = probe.probe(loopback(server.port()), s).get(5, TimeUnit.SECONDS);
            assertEquals(ProbeResult.down("timed out after 200 ms"), r);
        }
    }

    @Test
    void httpRefusedIsDown() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (HttpProbe probe = new HttpProbe()) {
            ProbeResult r = probe.probe(loopback(port), ProbeSettings.http("/")).get(10, TimeUnit.SECONDS);
            assertEquals(ProbeResult.Outcome.DOWN, r.outcome(), r.detail());
        }
    }

    @Test
    void httpUrlsBracketIpv6AndKeepTheQuery() throws Exception {
        assertEquals(URI.create("http://[::1]:8080/health?deep=1"), HttpProbe.uri("::1", 8080, "/health?deep=1"));
        assertEquals(URI.create("http://10.0.0.1:80/"), HttpProbe.uri("10.0.0.1", 80, "/"));
    }

    @Test
    void ipLiteralsAreToldFromHostNames() {
        assertTrue(Cidr.isIpLiteral("10.0.0.1"));
        assertTrue(Cidr.isIpLiteral("::1"));
        assertTrue(Cidr.isIpLiteral("fe80::1%eth0"));
        assertEquals(false, Cidr.isIpLiteral("999.0.0.1"));
        assertEquals(false, Cidr.isIpLiteral("1.2.3"));
        assertEquals(false, Cidr.isIpLiteral("order-service.internal"));
    }
}
