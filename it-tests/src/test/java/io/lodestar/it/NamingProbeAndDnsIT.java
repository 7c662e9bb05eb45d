package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.FreePorts;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A server process probes its persistent instances over real TCP and answers DNS from the
 * registry: an instance whose listener closes leaves the answers, and comes back when it reopens.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NamingProbeAndDnsIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    void aPersistentInstanceLeavesDnsAnswersWhileItsPortIsClosedAndComesBackWhenItReopens() throws Exception {
        int dnsPort = FreePorts.next();
        ServerProcess p = cluster.startStandalone("probes", "--dns-port", String.valueOf(dnsPort));
        try (ServerSocket steady = listen(0);
                ServerSocket flapping0 = listen(0)) {
            ServerSocket flapping = flapping0;
            int flappingPort = flapping.getLocalPort();
            register(p, steady.getLocalPort());
            register(p, flappingPort);
            SimpleResolver dns = new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), dnsPort));
            dns.setTimeout(Duration.ofSeconds(3));
            String name = "payments.DEFAULT_GROUP.public.lodestar.";
            Await.until(
                    Duration.ofSeconds(30),
                    "both instances in the SRV answer",
                    () -> srvPorts(dns, name).equals(Set.of(steady.getLocalPort(), flappingPort)));

            flapping.close();
            long closedAt = System.nanoTime();
            // probed every 5 s, unhealthy after 3 failures in a row
            Await.until(
                    Duration.ofSeconds(45), "the closed instance to turn unhealthy", () -> !healthy(p, flappingPort));
            System.out.printf(
                    "instance marked unhealthy %d ms after its port closed%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt));
            assertEquals(Set.of(steady.getLocalPort()), srvPorts(dns, name), "only the live instance is answered");
            assertEquals(
                    Rcode.NXDOMAIN,
                    dns.send(query("unknown.DEFAULT_GROUP.public.lodestar.", Type.A))
                            .getRcode());

            flapping = listen(flappingPort);
            try {
                Await.until(
                        Duration.ofSeconds(30),
                        "the reopened instance to turn healthy",
                        () -> healthy(p, flappingPort));
                Await.until(
                        Duration.ofSeconds(10),
                        "both instances answered again",
                        () -> srvPorts(dns, name).equals(Set.of(steady.getLocalPort(), flappingPort)));
            } finally {
                flapping.close();
            }
        }
    }

    private static ServerSocket listen(int port) throws Exception {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return s;
    }

    private static void register(ServerProcess p, int port) throws Exception {
        Http.Response r = Http.postForm(
                p.httpAddress(),
                "/nacos/v1/ns/instance",
                Http.params(
                        "serviceName",
                        "payments",
                        "ip",
                        "127.0.0.1",
                        "port",
                        String.valueOf(port),
                        "ephemeral",
                        "false"));
        assertEquals(200, r.status(), r.body());
    }

    private static boolean healthy(ServerProcess p, int port) throws Exception {
        JsonNode instance =
                Http.json(p.httpAddress(), "/nacos/v1/ns/instance?serviceName=payments&ip=127.0.0.1&port=" + port);
        return instance.get("healthy").asBoolean();
    }

    private static Message query(String name, int type) throws Exception {
        return Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    }

    private static Set<Integer> srvPorts(SimpleResolver dns, String name) throws Exception {
        Set<Integer> ports = new TreeSet<>();
        for (Record r : dns.send(query(name, Type.SRV)).getSection(Section.ANSWER)) {
            if (r instanceof SRVRecord srv) {
                ports.add(srv.getPort());
            }
        }
        return ports;
    }
}
