package io.lodestar.api.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LimitsTest {
    @Test
    void settingsOverrideTheDefaultsAndSizesTakeUnits() {
        Limits limits = Limits.parse(List.of("http.body-bytes=8MiB", "grpc.connections=3"));
        assertEquals(8L << 20, limits.get(Limit.HTTP_BODY_BYTES));
        assertEquals(3, limits.intValue(Limit.GRPC_CONNECTIONS));
        assertEquals(Limit.HTTP_THREADS_PER_ADDRESS.defaultValue(), limits.get(Limit.HTTP_THREADS_PER_ADDRESS));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "http.nope=1", // not a limit
                "http.body-bytes", // no value
                "http.body-bytes=-1",
                "http.body-bytes=lots",
                "grpc.connections=2KiB", // a count takes no unit
                "http.body-bytes=999999999999999GiB"
            })
    void aBadSettingIsRefusedNamingIt(String setting) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Limits.parse(List.of(setting)));
        String name = setting.contains("=") ? setting.substring(0, setting.indexOf('=')) : setting;
        assertTrue(e.getMessage().contains(name), e.getMessage());
    }

    /** The operator's page lists every limit with its default, so the two cannot drift apart. */
    @Test
    void docsListEveryLimitWithItsDefault() throws Exception {
        String page = Files.readString(Path.of(System.getProperty("lodestar.repo", ".."), "docs", "limits.md"));
        for (Limit l : Limit.values()) {
            assertTrue(
                    page.contains("| `" + l.key() + "` | " + l.defaultValue() + " "),
                    "docs/limits.md lists " + l.key() + " with its default " + l.defaultValue());
        }
    }
}
