package io.lodestar.naming.distro;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.error.LimitExceededException;
import io.lodestar.naming.BeatResult;
import io.lodestar.naming.InstanceNotFoundException;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import org.junit.jupiter.api.Test;

class WriteStatusTest {
    @Test
    void wireCodesStayAsMembersOfEarlierVersionsSendThem() {
        assertEquals(0, WriteStatus.OK.code());
        assertEquals(1, WriteStatus.BEAT_UNKNOWN.code());
        assertEquals(2, WriteStatus.INVALID_REQUEST.code());
        assertEquals(3, WriteStatus.INSTANCE_NOT_FOUND.code());
        assertEquals(4, WriteStatus.FAILED.code());
        assertEquals(5, WriteStatus.LIMIT_EXCEEDED.code());
        for (WriteStatus s : WriteStatus.values()) {
            assertEquals(s, WriteStatus.of(s.code()));
        }
    }

    @Test
    void anUnknownCodeReadsAsAFailure() {
        assertEquals(WriteStatus.FAILED, WriteStatus.of((byte) 9));
        assertEquals(WriteStatus.FAILED, WriteStatus.of((byte) -1));
    }

    @Test
    void eachDomainErrorHasItsStatus() {
        ServiceKey service = ServiceKey.of("public", "DEFAULT_GROUP", "s");
        assertEquals(WriteStatus.INVALID_REQUEST, WriteStatus.failed(new InvalidRequestException("ip", "bad")));
        assertEquals(
                WriteStatus.INSTANCE_NOT_FOUND,
                WriteStatus.failed(new InstanceNotFoundException(service, new InstanceAddress("c", "1.2.3.4", 80))));
        assertEquals(WriteStatus.LIMIT_EXCEEDED, WriteStatus.failed(LimitExceededException.tooMany("quota.x", 1, "x")));
        assertEquals(WriteStatus.FAILED, WriteStatus.failed(new IllegalStateException("x")));
        assertEquals(WriteStatus.OK, WriteStatus.applied(null));
        assertEquals(WriteStatus.OK, WriteStatus.applied(new BeatResult(BeatResult.Status.OK, 5000)));
        assertEquals(WriteStatus.BEAT_UNKNOWN, WriteStatus.applied(new BeatResult(BeatResult.Status.UNKNOWN, 5000)));
    }
}
