package io.lodestar.naming.model;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.lodestar.error.InvalidRequestException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every bad input is an InvalidRequestException naming the Nacos parameter at fault. */
class NamingValidationTest {

    static Stream<Arguments> badInputs() {
        String big = "x".repeat(NamingValidation.MAX_METADATA_BYTES);
        return Stream.of(
                bad("blank service name", "serviceName", () -> ServiceKey.of("ns", "G", " ")),
                bad("space in service name", "serviceName", () -> new ServiceKey("ns", "G", "a b")),
                bad("slash in service name", "serviceName", () -> new ServiceKey("ns", "G", "a/b")),
                bad("service name over 512", "serviceName", () -> new ServiceKey("ns", "G", "s".repeat(513))),
                bad("service name starting with @", "serviceName", () -> new ServiceKey("ns", "G", "@svc")),
                bad("empty name after group", "serviceName", () -> ServiceKey.of("ns", null, "G@@")),
                bad("empty group before name", "serviceName", () -> ServiceKey.of("ns", null, "@@svc")),
                bad("two group separators", "serviceName", () -> ServiceKey.of("ns", null, "G@@a@@b")),
                bad("group disagreeing with grouped name", "groupName", () -> ServiceKey.of("ns", "OTHER", "G@@svc")),
                bad("@ in group", "groupName", () -> new ServiceKey("ns", "G@x", "svc")),
                bad("group over 128", "groupName", () -> new ServiceKey("ns", "g".repeat(129), "svc")),
                bad("dot in namespace", "namespaceId", () -> new ServiceKey("a.b", "G", "svc")),
                bad("namespace over 128", "namespaceId", () -> new ServiceKey("n".repeat(129), "G", "svc")),
                bad("dot in cluster", "clusterName", () -> new InstanceAddress("a.b", "1.2.3.4", 80)),
                bad("cluster over 64", "clusterName", () -> new InstanceAddress("c".repeat(65), "1.2.3.4", 80)),
                bad("missing ip", "ip", () -> new InstanceAddress("C", null, 80)),
                bad("ipv4 octet over 255", "ip", () -> new InstanceAddress("C", "10.0.0.256", 80)),
                bad("three-part dotted number", "ip", () -> new InstanceAddress("C", "10.0.1", 80)),
                bad("five-part dotted number", "ip", () -> new InstanceAddress("C", "10.0.0.1.2", 80)),
                bad("empty ipv4 part", "ip", () -> new InstanceAddress("C", "10..0.1", 80)),
                bad("trailing dot after ipv4", "ip", () -> new InstanceAddress("C", "10.0.0.1.", 80)),
                bad("leading dot before ipv4", "ip", () -> new InstanceAddress("C", ".10.0.0.1", 80)),
                bad("four-digit ipv4 part", "ip", () -> new InstanceAddress("C", "10.0.0.0001", 80)),
                bad(
                        "metadata over the limit in UTF-8 bytes",
                        "metadata",
                        () -> Instance.of("1.2.3.4", 80)
                                .withMetadata(Map.of("kk", "\u20ac".repeat(NamingValidation.MAX_METADATA_BYTES / 3)))),
                bad("ipv6 with two gaps", "ip", () -> new InstanceAddress("C", "1::2::3", 80)),
                bad("ipv6 group of five digits", "ip", () -> new InstanceAddress("C", "12345::1", 80)),
                bad("bracketed ipv6", "ip", () -> new InstanceAddress("C", "[::1]", 80)),
                bad("host label starting with a dash", "ip", () -> new InstanceAddress("C", "-host.example", 80)),
                bad("space in host", "ip", () -> new InstanceAddress("C", "my host", 80)),
                bad("empty host label", "ip", () -> new InstanceAddress("C", "host..example", 80)),
                bad("host label ending with a dash", "ip", () -> new InstanceAddress("C", "host-.example", 80)),
                bad("host label over 63", "ip", () -> new InstanceAddress("C", "h".repeat(64) + ".example", 80)),
                bad(
                        "host name over 253",
                        "ip",
                        () -> new InstanceAddress("C", ("h".repeat(49) + ".").repeat(5) + "hhhh", 80)),
                bad("lone dot as host", "ip", () -> new InstanceAddress("C", ".", 80)),
                bad("negative port", "port", () -> new InstanceAddress("C", "1.2.3.4", -1)),
                bad("port over 65535", "port", () -> new InstanceAddress("C", "1.2.3.4", 65536)),
                bad("NaN weight", "weight", () -> Instance.of("1.2.3.4", 80).withWeight(Double.NaN)),
                bad(
                        "oversized metadata",
                        "metadata",
                        () -> Instance.of("1.2.3.4", 80).withMetadata(Map.of("k", big))),
                bad(
                        "null metadata key",
                        "metadata",
                        () -> Instance.of("1.2.3.4", 80).withMetadata(nullKey())),
                bad(
                        "heartbeat interval not a number",
                        "metadata",
                        () -> Instance.of("1.2.3.4", 80).withMetadata(Map.of(HeartbeatSettings.INTERVAL_KEY, "soon"))),
                bad(
                        "heartbeat timeout zero",
                        "metadata",
                        () -> Instance.of("1.2.3.4", 80).withMetadata(Map.of(HeartbeatSettings.TIMEOUT_KEY, "0"))),
                bad(
                        "delete timeout shorter than interval",
                        "metadata",
                        () -> Instance.of("1.2.3.4", 80)
                                .withMetadata(Map.of(
                                        HeartbeatSettings.INTERVAL_KEY,
                                        "10000",
                                        HeartbeatSettings.DELETE_TIMEOUT_KEY,
                                        "5000"))),
                bad("protect threshold above 1", "protectThreshold", () -> new ServiceSpec(1.5, Map.of(), Map.of())),
                bad("negative protect threshold", "protectThreshold", () -> new ServiceSpec(-0.1, Map.of(), Map.of())),
                bad(
                        "bad cluster in spec",
                        "clusterName",
                        () -> new ServiceSpec(0, Map.of(), Map.of("a b", HealthCheckSettings.DEFAULT))),
                bad(
                        "missing checker type",
                        "healthChecker.type",
                        () -> new HealthCheckSettings(null, "/", 80, true, "200")),
                bad(
                        "relative http path",
                        "healthChecker.path",
                        () -> new HealthCheckSettings(CheckerType.HTTP, "health", 80, true, "200")),
                bad(
                        "check port 0 without instance port",
                        "checkPort",
                        () -> new HealthCheckSettings(CheckerType.TCP, "/", 0, false, "200")),
                bad(
                        "expected code 700",
                        "healthChecker.expectedResponseCode",
                        () -> new HealthCheckSettings(CheckerType.HTTP, "/", 80, true, "700")),
                bad(
                        "expected code class 2x",
                        "healthChecker.expectedResponseCode",
                        () -> new HealthCheckSettings(CheckerType.HTTP, "/", 80, true, "2x")));
    }

    private static Arguments bad(String what, String field, Executable call) {
        return Arguments.of(what, field, call);
    }

    private static Map<String, String> nullKey() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(null, "v");
        return m;
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("badInputs")
    void badInputIsRejectedNamingItsField(String what, String field, Executable call) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, call, what);
        assertEquals(field, e.field(), what + ": " + e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "10.0.0.1",
                "010.0.0.01",
                "0.0.0.0",
                "255.255.255.255",
                "::",
                "::1",
                "fe80::1%eth0",
                "2001:db8::8a2e:370:7334",
                "1:2:3:4:5:6:7:8",
                "::ffff:192.168.1.1",
                "localhost",
                "svc.ns.svc.cluster.local",
                "my_container-1",
                "host.",
                "h-1.example"
            })
    void goodAddressesAreAccepted(String ip) {
        assertDoesNotThrow(() -> new InstanceAddress("C", ip, 8080));
    }

    @Test
    void metadataUpToTheLimitInUtf8BytesIsAccepted() {
        // 1 + 3 x 21,845 = 65,536 bytes: the euro sign is 3 bytes, a character pair outside the BMP 4
        assertDoesNotThrow(() -> Instance.of("1.2.3.4", 80)
                .withMetadata(Map.of("k", "\u20ac".repeat(NamingValidation.MAX_METADATA_BYTES / 3))));
        assertDoesNotThrow(() -> Instance.of("1.2.3.4", 80)
                .withMetadata(Map.of("k", "\ud83d\ude00".repeat(NamingValidation.MAX_METADATA_BYTES / 4 - 1))));
        assertThrows(
                InvalidRequestException.class,
                () -> Instance.of("1.2.3.4", 80)
                        .withMetadata(
                                Map.of("kkkkk", "\ud83d\ude00".repeat(NamingValidation.MAX_METADATA_BYTES / 4 - 1))));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 65535})
    void portsFromZeroTo65535AreAccepted(int port) {
        assertDoesNotThrow(() -> new InstanceAddress("C", "1.2.3.4", port));
    }

    @ParameterizedTest
    @ValueSource(strings = {"providers:com.example.Api:1.0.0:", "a@b", "x.y-z_w:1", "s"})
    void serviceNamesNacosAcceptsAreAccepted(String name) {
        assertDoesNotThrow(() -> new ServiceKey("ns-1_x", "DEFAULT_GROUP", name));
    }
}
