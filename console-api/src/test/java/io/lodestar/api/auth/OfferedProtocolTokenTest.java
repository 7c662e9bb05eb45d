package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class OfferedProtocolTokenTest {
    @Test
    void aBrowsersTokenIsReadFromItsOfferedSubprotocols() {
        assertEquals(
                "aaa.bbb.ccc", Authentication.offeredProtocolToken("lodestar.push.v1, lodestar.bearer.aaa.bbb.ccc"));
        assertEquals("t", Authentication.offeredProtocolToken("lodestar.bearer.t,lodestar.push.v1"));
        assertNull(Authentication.offeredProtocolToken("lodestar.push.v1"));
        assertNull(Authentication.offeredProtocolToken(null));
    }
}
