package io.lodestar.naming.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.kv.raft.RaftKvStore;
import io.lodestar.kv.testing.Await;
import io.lodestar.kv.testing.OneNodeStore;
import io.lodestar.naming.NamingKeyspaces;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** The DNS server over the real registry: answers follow registrations, whatever the case of the query. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryDnsSourceTest {
    @TempDir
    Path dir;

    @Test
    void answersTheRegistrysHealthyInstancesAndFollowsItsChanges() throws Exception {
        ServiceKey orders = ServiceKey.of("public", "DEFAULT_GROUP", "Orders");
        try (RaftKvStore store = OneNodeStore.start(dir, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
                NamingService naming = new NamingService(store);
                RegistryDnsSource source = new RegistryDnsSource(naming, DnsNamespaces.parse(DnsNamespaces.DEFAULT));
                DnsServer dns =
                        new DnsServer(DnsServerSettings.defaults().withAddress("127.0.0.1", 0), source).start()) {
            SimpleResolver resolver =
                    new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), dns.port()));
            resolver.setTimeout(Duration.ofSeconds(5));
            String name = "oRDERs.default_group.PUBLIC.lodestar.";
            assertEquals(Rcode.NXDOMAIN, ask(resolver, name).getRcode(), "unknown before any registration");

            naming.register(orders, instance("127.1.0.1", true)).get(10, TimeUnit.SECONDS);
            naming.register(orders, instance("127.1.0.2", true)).get(10, TimeUnit.SECONDS);
            // the index learns of a new service from the registry's notifier thread: a moment later
            Await.until("both instances", () -> answered(resolver, name).equals(Set.of("127.1.0.1", "127.1.0.2")));

            // two services whose names differ only in case answer one DNS name together
            ServiceKey lowerOrders = ServiceKey.of("public", "DEFAULT_GROUP", "orders");
            naming.register(lowerOrders, instance("127.1.0.3", true)).get(10, TimeUnit.SECONDS);
            Await.until(
                    "both services",
                    () -> answered(resolver, name).equals(Set.of("127.1.0.1", "127.1.0.2", "127.1.0.3")));
            naming.deregister(lowerOrders, "DEFAULT", "127.1.0.3", 8080, true).get(10, TimeUnit.SECONDS);
            Await.until(
                    "the other's instance gone",
                    () -> answered(resolver, name).equals(Set.of("127.1.0.1", "127.1.0.2")));

            naming.update(orders, instance("127.1.0.2", false)).get(10, TimeUnit.SECONDS); // disabled
            Await.until(
                    "a disabled instance to leave the answer",
                    () -> answered(resolver, name).equals(Set.of("127.1.0.1")));

            naming.deregister(orders, "DEFAULT", "127.1.0.1", 8080, true).get(10, TimeUnit.SECONDS);
            naming.deregister(orders, "DEFAULT", "127.1.0.2", 8080, true).get(10, TimeUnit.SECONDS);
            Await.until("the deregistrations", () -> answered(resolver, name).isEmpty());
            assertEquals(Rcode.NOERROR, ask(resolver, name).getRcode(), "a known service with nothing to serve");
        }
    }

    /**
     * DNS has no caller to check: it answers for the namespaces it is told to serve (the public one
     * by default), and a query for another is answered as for a service that does not exist.
     */
    @Test
    void answersOnlyTheNamespacesItServes() throws Exception {
        ServiceKey open = ServiceKey.of("public", "DEFAULT_GROUP", "catalog");
        ServiceKey team = ServiceKey.of("Team-A", "DEFAULT_GROUP", "billing");
        ServiceKey other = ServiceKey.of("team-b", "DEFAULT_GROUP", "billing");
        try (RaftKvStore store = OneNodeStore.start(dir, NamingKeyspaces.ALL, NamingKeyspaces.COUNTED);
                NamingService naming = new NamingService(store)) {
            naming.register(open, instance("127.1.0.1", true)).get(10, TimeUnit.SECONDS);
            naming.register(team, instance("127.1.0.2", true)).get(10, TimeUnit.SECONDS);
            naming.register(other, instance("127.1.0.3", true)).get(10, TimeUnit.SECONDS);
            for (String spec : new String[] {DnsNamespaces.DEFAULT, "public,team-a", "all"}) {
                DnsNamespaces served = DnsNamespaces.parse(spec);
                try (RegistryDnsSource source = new RegistryDnsSource(naming, served);
                        DnsServer dns = new DnsServer(
                                        DnsServerSettings.defaults().withAddress("127.0.0.1", 0), source)
                                .start()) {
                    SimpleResolver resolver =
                            new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), dns.port()));
                    resolver.setTimeout(Duration.ofSeconds(5));
                    assertEquals(Set.of("127.1.0.1"), answered(resolver, "catalog.DEFAULT_GROUP.public.lodestar."));
                    String teamName = "billing.DEFAULT_GROUP.team-a.lodestar.";
                    String otherName = "billing.DEFAULT_GROUP.team-b.lodestar.";
                    if (served.serves("team-a")) {
                        assertEquals(Set.of("127.1.0.2"), answered(resolver, teamName), spec);
                    } else {
                        assertEquals(Rcode.NXDOMAIN, ask(resolver, teamName).getRcode(), spec);
                    }
                    if (served.serves("team-b")) {
                        assertEquals(Set.of("127.1.0.3"), answered(resolver, otherName), spec);
                    } else {
                        assertEquals(Rcode.NXDOMAIN, ask(resolver, otherName).getRcode(), spec);
                    }
                }
            }
        }
    }

    private static Instance instance(String ip, boolean enabled) {
        return new Instance(null, ip, 8080, 1, enabled, true, true, "DEFAULT", Map.of());
    }

    private static Message ask(SimpleResolver resolver, String name) throws Exception {
        return resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)));
    }

    /** The addresses in the A answer for {@code name}. */
    private static Set<String> answered(SimpleResolver resolver, String name) {
        try {
            return addresses(ask(resolver, name));
        } catch (Exception e) {
            throw new AssertionError("no answer for " + name, e);
        }
    }

    private static Set<String> addresses(Message answer) {
        Set<String> out = new TreeSet<>();
        for (Record r : answer.getSection(Section.ANSWER)) {
            if (r instanceof ARecord a) {
                out.add(a.getAddress().getHostAddress());
            }
        }
        return out;
    }
}
