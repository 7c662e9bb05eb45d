package io.lodestar.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BetaIpsTest {
    @Test
    void literalsAreKeptInCanonicalFormWithoutDuplicates() {
        assertEquals(
                List.of("10.1.2.3", "0:0:0:0:0:0:0:1", "127.0.0.1"),
                BetaIps.parse(" 10.1.2.3, ::1,0:0:0:0:0:0:0:1 ,127.0.0.1,10.1.2.3"));
        assertEquals(List.of("2001:db8:0:0:0:0:0:1"), BetaIps.parse("2001:DB8::1"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                ",",
                "10.1.2.3,",
                "localhost",
                "example.com",
                "10.1.2",
                "10.1.2.3.4",
                "256.1.1.1",
                "010.1.2.3",
                "1.2.3.-4",
                "[::1]",
                "fe80::1%eth0",
                "::g",
                "1:2:3:4:5:6:7:8:9",
                "10.1.2.3:8080x"
            })
    void anythingButAListOfIpLiteralsIsRejectedNamingTheField(String bad) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> BetaIps.parse(bad));
        assertTrue(e.getMessage().contains("betaIps"), e.getMessage());
    }

    @Test
    void atMost256Entries() {
        String ips = IntStream.range(0, 257)
                .mapToObj(i -> "10.0." + (i / 256) + "." + (i % 256))
                .collect(Collectors.joining(","));
        assertThrows(InvalidRequestException.class, () -> BetaIps.parse(ips));
        assertEquals(256, BetaIps.parse(ips.substring(0, ips.lastIndexOf(','))).size());
    }

    @Test
    void aClientAddressThatIsNoLiteralMatchesNothing() {
        assertNull(BetaIps.canonical("localhost"));
        assertNull(BetaIps.canonical(null));
    }
}
