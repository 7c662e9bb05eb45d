package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.CheckerType;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProbeSettingsTest {

    @Test
    void defaultsAreDocumented() {
        ProbeSettings s = ProbeSettings.tcp();
        assertEquals(CheckerType.TCP, s.type());
        assertEquals(Duration.ofSeconds(5), s.interval());
        assertEquals(Duration.ofSeconds(2), s.timeout());
        assertEquals(3, s.failureThreshold());
        assertEquals(1, s.successThreshold());
        assertEquals(8080, s.portFor(8080), "port 0 probes the instance's port");
        assertEquals(9090, s.withPort(9090).portFor(8080));
    }

    @Test
    void emptyPathIsTheRootAndExpectedStatusesDefaultToAny2xx() {
        ProbeSettings s = ProbeSettings.http("");
        assertEquals("/", s.path());
        assertTrue(s.expects(200));
        assertTrue(s.expects(299));
        assertFalse(s.expects(302));
        assertFalse(s.expects(500));
        ProbeSettings only200 = s.withExpectedStatuses(Set.of(200));
        assertTrue(only200.expects(200));
        assertFalse(only200.expects(204));
    }

    @Test
    void invalidSettingsNameTheField() {
        assertEquals(
                "healthChecker.path",
                assertThrows(InvalidRequestException.class, () -> ProbeSettings.http("health"))
                        .field());
        assertEquals(
                "healthChecker.port",
                assertThrows(
                                InvalidRequestException.class,
                                () -> ProbeSettings.tcp().withPort(70_000))
                        .field());
        assertEquals(
                "healthChecker.timeout",
                assertThrows(
                                InvalidRequestException.class,
                                () -> ProbeSettings.tcp().withTiming(Duration.ZERO, Duration.ofSeconds(1)))
                        .field());
        assertEquals(
                "healthChecker.failureThreshold",
                assertThrows(
                                InvalidRequestException.class,
                                () -> ProbeSettings.tcp().withThresholds(0, 1))
                        .field());
        assertEquals(
                "healthChecker.expectedResponseCode",
                assertThrows(
                                InvalidRequestException.class,
                                () -> ProbeSettings.http("/").withExpectedStatuses(Set.of(42)))
                        .field());
    }
}
