package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.InvalidRequestException;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HealthCheckSettingsTest {

    @Test
    void defaultsAreDocumented() {
        HealthCheckSettings s = HealthCheckSettings.tcp();
        assertEquals(HealthCheckType.TCP, s.type());
        assertEquals(Duration.ofSeconds(5), s.interval());
        assertEquals(Duration.ofSeconds(2), s.timeout());
        assertEquals(3, s.failureThreshold());
        assertEquals(1, s.successThreshold());
        assertEquals(8080, s.portFor(8080), "port 0 probes the instance's port");
        assertEquals(9090, s.withPort(9090).portFor(8080));
    }

    @Test
    void emptyPathIsTheRootAndExpectedStatusesDefaultToAny2xx() {
        HealthCheckSettings s = HealthCheckSettings.http("");
        assertEquals("/", s.path());
        assertTrue(s.expects(200));
        assertTrue(s.expects(299));
        assertFalse(s.expects(302));
        assertFalse(s.expects(500));
        HealthCheckSettings only200 = s.withExpectedStatuses(Set.of(200));
        assertTrue(only200.expects(200));
        assertFalse(only200.expects(204));
    }

    @Test
    void invalidSettingsNameTheField() {
        assertEquals("healthChecker.path",
                assertThrows(InvalidRequestException.class, () -> HealthCheckSettings.http("health")).field());
        assertEquals("healthChecker.port",
                assertThrows(InvalidRequestException.class, () -> HealthCheckSettings.tcp().withPort(70_000)).field());
        assertEquals("healthChecker.timeout", assertThrows(InvalidRequestException.class,
                () -> HealthCheckSettings.tcp().withTiming(Duration.ZERO, Duration.ofSeconds(1))).field());
        assertEquals("healthChecker.failureThreshold",
                assertThrows(InvalidRequestException.class, () -> HealthCheckSettings.tcp().withThresholds(0, 1))
                        .field());
        assertEquals("healthChecker.expectedResponseCode", assertThrows(InvalidRequestException.class,
                () -> HealthCheckSettings.http("/").withExpectedStatuses(Set.of(42))).field());
    }
}
