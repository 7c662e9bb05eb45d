package io.lodestar.naming.persistent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.ServiceSpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stored service definition round-trips, with whether an operator defined it, and reads version-1 records. */
class ServiceSpecCodecTest {
    private static final ServiceSpec SPEC = new ServiceSpec(
            0.3,
            Map.of("owner", "team-a"),
            Map.of("web", new HealthCheckSettings(CheckerType.HTTP, "/health", 8080, false, "200")));

    @Test
    void roundTripsTheSpecAndTheDefinedFlag() {
        assertEquals(
                new ServiceSpecCodec.Decoded(SPEC, true), ServiceSpecCodec.decode(ServiceSpecCodec.encode(SPEC, true)));
        assertEquals(
                new ServiceSpecCodec.Decoded(ServiceSpec.DEFAULT, false),
                ServiceSpecCodec.decode(ServiceSpecCodec.encode(ServiceSpec.DEFAULT, false)));
    }

    @Test
    void aVersionOneRecordIsDefinedUnlessItIsTheDefaultARegistrationWrote() {
        assertTrue(ServiceSpecCodec.decode(versionOne(SPEC)).defined());
        assertFalse(ServiceSpecCodec.decode(versionOne(ServiceSpec.DEFAULT)).defined());
        assertEquals(SPEC, ServiceSpecCodec.decode(versionOne(SPEC)).spec());
    }

    /** Version 1 was version 2 without the trailing flag. */
    private static byte[] versionOne(ServiceSpec spec) {
        byte[] v2 = ServiceSpecCodec.encode(spec, true);
        byte[] v1 = Arrays.copyOf(v2, v2.length - 1);
        v1[0] = 1;
        return v1;
    }

    /** ServiceSpecCodec's output before FieldOutput, for {@code SPEC} defined. */
    private static final String OLD_HEX =
            "023fd333333333333300000001000000056f776e6572000000067465616d2d61000000010000000377656202000000072f6865616c746800001f90000000000332303001";

    @Test
    void storedByEarlierBuildsDecodesAndReEncodesToTheSameBytes() {
        byte[] old = HexFormat.of().parseHex(OLD_HEX);
        ServiceSpecCodec.Decoded decoded = ServiceSpecCodec.decode(old);
        assertEquals(new ServiceSpecCodec.Decoded(SPEC, true), decoded);
        org.junit.jupiter.api.Assertions.assertArrayEquals(old, ServiceSpecCodec.encode(decoded.spec(), true));
    }
}
