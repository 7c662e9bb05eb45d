package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which addresses the default and a configured {@code --probe-allow} let the health checks dial. */
class ProbeScopeTest {
    private final ProbeScope everywhere = ProbeScope.parse("0.0.0.0/0,::/0");
    private final ProbeScope defaults = ProbeScope.defaults();

    @ParameterizedTest
    @ValueSource(
            strings = {
                "10.0.0.1",
                "172.16.4.2",
                "192.168.1.10",
                "100.64.0.1",
                "8.8.8.8",
                "127.0.0.1",
                "::1",
                "fd12:3456::1",
                "2001:db8::1",
                "::ffff:10.1.2.3"
            })
    void everywhereAllowsPrivatePublicAndLoopbackUnicast(String ip) {
        assertNull(everywhere.refusal(ip), ip);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.53", "::1"})
    void theDefaultLeavesOutTheNodesOwnLoopback(String ip) {
        assertNotNull(defaults.refusal(ip), ip);
    }

    @Test
    void theDefaultIsTheNetworksThisHostIsOn() throws Exception {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InterfaceAddress a : nic.getInterfaceAddresses()) {
                InetAddress address = a.getAddress();
                if (address.isLinkLocalAddress() || a.getNetworkPrefixLength() < 0) {
                    continue;
                }
                assertNull(defaults.refusal(address), address + " of " + nic.getName());
                assertTrue(defaults.toString()
                        .contains(Cidr.networkOf(address, a.getNetworkPrefixLength())
                                .toString()));
            }
        }
        assertEquals(ProbeScope.parse("local").toString(), defaults.toString());
    }

    @Test
    void localCombinesWithNetworksGiven() {
        ProbeScope scope = ProbeScope.parse("local,127.0.0.0/8");
        assertNull(scope.refusal("127.0.0.1"));
        assertTrue(scope.toString().endsWith("127.0.0.0/8"), scope.toString());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "169.254.169.254",
                "169.254.0.1",
                "100.100.100.200",
                "168.63.129.16",
                "fd00:ec2::254",
                "fe80::1",
                "224.0.0.1",
                "239.255.255.250",
                "ff02::1",
                "255.255.255.255",
                "240.0.0.1",
                "0.0.0.0",
                "0.1.2.3",
                "::",
                "::ffff:169.254.169.254",
                "64:ff9b::a9fe:a9fe",
                "::169.254.169.254"
            })
    void linkLocalMetadataMulticastAndUnspecifiedAreNeverProbed(String ip) {
        assertNotNull(defaults.refusal(ip), ip);
        assertNotNull(everywhere.refusal(ip), "even when allowed: " + ip);
    }

    @Test
    void aConfiguredScopeAllowsOnlyItsNetworks() {
        ProbeScope scope = ProbeScope.parse("127.0.0.0/8, 10.77.0.0/16");
        assertNull(scope.refusal("127.0.0.9"));
        assertNull(scope.refusal("10.77.3.10"));
        assertEquals("10.78.0.1 is outside --probe-allow 127.0.0.0/8,10.77.0.0/16", scope.refusal("10.78.0.1"));
        assertNotNull(scope.refusal("::1"), "an IPv4 scope allows no IPv6 address");
        assertEquals("127.0.0.0/8,10.77.0.0/16", scope.toString());
    }

    @Test
    void noneAllowsNothing() {
        ProbeScope none = ProbeScope.parse("none");
        assertTrue(none.allowsNothing());
        assertNotNull(none.refusal("127.0.0.1"));
        assertEquals("none", none.toString());
    }

    @Test
    void aHostNameIsNotJudgedUntilItIsResolved() {
        assertNull(ProbeScope.parse("10.0.0.0/8").refusal("orders.internal"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "10.0.0.0/33",
                "10.0.0.1/8",
                "10.0.0/8",
                "example.com/8",
                "10.0.0.0/-1",
                "10.0.0.0/8,",
                "::/129",
                "fe80::1%eth0/128",
                "10.0.0.0/08x"
            })
    void malformedNetworksAreRefusedWithWhatIsWrong(String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProbeScope.parse(spec));
        assertTrue(e.getMessage().length() > 10, e.getMessage());
    }
}
