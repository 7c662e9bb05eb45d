package io.lodestar.api.push;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PushProtocolTest {
    @Test
    void theConsolesProtocolIsSelectedOnlyWhenOffered() {
        assertTrue(PushRoutes.offers("lodestar.push.v1, lodestar.bearer.x.y.z", PushRoutes.PROTOCOL));
        assertTrue(PushRoutes.offers("lodestar.bearer.x,lodestar.push.v1", PushRoutes.PROTOCOL));
        assertFalse(PushRoutes.offers(null, PushRoutes.PROTOCOL), "clients offering none get none");
        assertFalse(PushRoutes.offers("lodestar.push.v10", PushRoutes.PROTOCOL));
    }
}
