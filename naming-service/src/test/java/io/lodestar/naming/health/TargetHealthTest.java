package io.lodestar.naming.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The flip rule, result by result, without sockets or clocks. */
class TargetHealthTest {
    private static final long RETRY = 1_000;

    private static TargetHealth target(boolean healthy, int failures, int successes) {
        return new TargetHealth(
                new ProbeTarget(
                        "t", "127.0.0.1", 80, healthy, ProbeSettings.tcp().withThresholds(failures, successes)),
                0);
    }

    private static void store(TargetHealth h, boolean healthy) {
        ProbeTarget t = h.target;
        h.target = new ProbeTarget(t.id(), t.ip(), t.port(), healthy, t.settings());
    }

    @Test
    void flipsUnhealthyOnTheThresholdthFailureInARow() {
        TargetHealth h = target(true, 3, 1);
        assertNull(h.record(false, 0, RETRY));
        assertNull(h.record(false, 1, RETRY));
        assertEquals(Boolean.FALSE, h.record(false, 2, RETRY));
    }

    @Test
    void aSuccessBetweenFailuresStartsTheCountAgain() {
        TargetHealth h = target(true, 3, 1);
        assertNull(h.record(false, 0, RETRY));
        assertNull(h.record(false, 1, RETRY));
        assertNull(h.record(true, 2, RETRY));
        assertNull(h.record(false, 3, RETRY));
        assertNull(h.record(false, 4, RETRY));
        assertEquals(Boolean.FALSE, h.record(false, 5, RETRY));
    }

    @Test
    void flipsHealthyOnTheThresholdthSuccessInARow() {
        TargetHealth h = target(false, 3, 2);
        assertNull(h.record(true, 0, RETRY));
        assertNull(h.record(false, 1, RETRY));
        assertNull(h.record(true, 2, RETRY));
        assertEquals(Boolean.TRUE, h.record(true, 3, RETRY));
    }

    @Test
    void nothingWhenTheStoredHealthAlreadyAgrees() {
        TargetHealth up = target(true, 1, 1);
        TargetHealth down = target(false, 1, 1);
        for (int i = 0; i < 10; i++) {
            assertNull(up.record(true, i, RETRY));
            assertNull(down.record(false, i, RETRY));
        }
    }

    @Test
    void aFlipInFlightIsNotAskedAgainUntilTheRetryTime() {
        TargetHealth h = target(true, 1, 1);
        assertEquals(Boolean.FALSE, h.record(false, 0, RETRY));
        assertNull(h.record(false, 10, RETRY), "the write is still on its way");
        assertNull(h.record(false, RETRY - 1, RETRY));
        assertEquals(Boolean.FALSE, h.record(false, RETRY, RETRY), "not stored after the retry time: asked again");
    }

    @Test
    void onceStoredTheNextOppositeVerdictFlipsBackAtOnce() {
        TargetHealth h = target(true, 1, 1);
        assertEquals(Boolean.FALSE, h.record(false, 0, RETRY));
        store(h, false);
        assertNull(h.record(false, 1, RETRY));
        assertEquals(Boolean.TRUE, h.record(true, 2, RETRY));
    }

    @Test
    void aRecoveryBeforeTheFlipLandedIsStillReportedOnceItLands() {
        TargetHealth h = target(true, 1, 1);
        assertEquals(Boolean.FALSE, h.record(false, 0, RETRY));
        assertNull(h.record(true, 1, RETRY), "stored healthy still agrees with the success");
        store(h, false); // the earlier flip lands now
        assertEquals(Boolean.TRUE, h.record(true, 2, RETRY));
    }

    @Test
    void probedDifferentlyWhenAddressPortOrSettingsChange() {
        TargetHealth h = target(true, 3, 1);
        ProbeTarget t = h.target;
        assertFalse(
                h.probedDifferently(new ProbeTarget("t", t.ip(), t.port(), false, t.settings())),
                "a change of stored health is not a new target");
        assertTrue(h.probedDifferently(new ProbeTarget("t", "127.0.0.2", t.port(), true, t.settings())));
        assertTrue(h.probedDifferently(new ProbeTarget("t", t.ip(), 81, true, t.settings())));
        assertTrue(h.probedDifferently(new ProbeTarget("t", t.ip(), t.port(), true, ProbeSettings.http("/"))));
    }
}
