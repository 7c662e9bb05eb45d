package io.lodestar.naming.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InstanceTest {

    @ParameterizedTest(name = "weight {0} -> {1}")
    @CsvSource({"1, 1", "0, 0", "0.001, 0.01", "-3, 0", "20000, 10000", "10000, 10000", "0.5, 0.5", "Infinity, 10000"})
    void weightIsClampedAsNacosDoes(double given, double stored) {
        assertEquals(stored, Instance.of("1.2.3.4", 80).withWeight(given).weight());
    }

    @Test
    void metadataIsAnUnmodifiableCopyInTheGivenOrderWithoutNullValues() {
        Map<String, String> given = new LinkedHashMap<>();
        given.put("z", "1");
        given.put("a", "2");
        given.put("dropped", null);
        given.put("m", "3");
        Instance i = Instance.of("1.2.3.4", 80).withMetadata(given);
        given.put("late", "x");
        assertEquals(List.of("z", "a", "m"), List.copyOf(i.metadata().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> i.metadata().put("k", "v"));
    }

    @Test
    void blankClusterIsDefaultAndIdIsNullUntilRegistered() {
        Instance i = Instance.of("1.2.3.4", 80).withCluster("");
        assertEquals("DEFAULT", i.cluster());
        assertNull(i.instanceId());
        ServiceKey s = new ServiceKey("public", "G", "svc");
        assertEquals("1.2.3.4#80#DEFAULT#G@@svc", i.withDefaultId(s).instanceId());
        assertEquals("mine", i.withInstanceId("mine").withDefaultId(s).instanceId(), "a given id is kept");
    }

    @Test
    void heartbeatSettingsComeFromPreservedMetadata() {
        assertEquals(HeartbeatSettings.DEFAULT, Instance.of("1.2.3.4", 80).heartbeat());
        Instance i = Instance.of("1.2.3.4", 80)
                .withMetadata(Map.of(
                        HeartbeatSettings.INTERVAL_KEY,
                        "1000",
                        HeartbeatSettings.TIMEOUT_KEY,
                        " 3000 ",
                        HeartbeatSettings.DELETE_TIMEOUT_KEY,
                        "6000"));
        assertEquals(new HeartbeatSettings(1000, 3000, 6000), i.heartbeat());
        Instance onlyInterval = Instance.of("1.2.3.4", 80).withMetadata(Map.of(HeartbeatSettings.INTERVAL_KEY, "2000"));
        assertEquals(new HeartbeatSettings(2000, 15_000, 30_000), onlyInterval.heartbeat());
    }

    @Test
    void patchChangesOnlyGivenFieldsAndReplacesMetadataWhole() {
        Instance i = Instance.of("1.2.3.4", 80).withWeight(2).withMetadata(Map.of("a", "1", "b", "2"));
        Instance p = new InstancePatch(null, false, Map.of("c", "3")).applyTo(i);
        assertEquals(2, p.weight());
        assertFalse(p.enabled());
        assertEquals(Map.of("c", "3"), p.metadata());
        assertEquals(i, InstancePatch.NONE.applyTo(i));
    }

    @Test
    void healthCheckSettingsMatchCodesAndClasses() {
        HealthCheckSettings s = new HealthCheckSettings(CheckerType.HTTP, "/health", 8081, false, "200, 3xx");
        assertTrue(s.expects(200));
        assertTrue(s.expects(302));
        assertFalse(s.expects(204));
        assertFalse(s.expects(500));
        assertEquals(8081, s.portFor(Instance.of("1.2.3.4", 80)));
        assertEquals(80, HealthCheckSettings.DEFAULT.portFor(Instance.of("1.2.3.4", 80)));
        assertTrue(HealthCheckSettings.DEFAULT.expects(204));
        assertEquals(
                CheckerType.TCP,
                new ServiceSpec(0, Map.of(), Map.of()).settingsFor("ANY").type());
    }
}
