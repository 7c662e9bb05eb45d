package io.lodestar.config.listen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.config.ConfigKey;
import io.lodestar.error.InvalidRequestException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The Listening-Configs value as nacos-client 1.4.x builds it: ^A between entries, ^B between fields. */
class ListeningConfigsTest {
    private static final String A = "\u0001";
    private static final String B = "\u0002";

    static Stream<Arguments> goodValues() {
        return Stream.of(
                Arguments.of(
                        "public namespace, trailing separator",
                        "d" + B + "G" + B + "m1" + A,
                        List.of(new ListeningEntry(new ConfigKey("", "G", "d"), "m1"))),
                Arguments.of(
                        "with tenant",
                        "d" + B + "G" + B + "m1" + B + "ns-1" + A,
                        List.of(new ListeningEntry(new ConfigKey("ns-1", "G", "d"), "m1"))),
                Arguments.of(
                        "empty md5 means the client holds nothing",
                        "d" + B + "G" + B + A,
                        List.of(new ListeningEntry(new ConfigKey("", "G", "d"), ""))),
                Arguments.of(
                        "several, blank entries ignored, no trailing separator",
                        A + "a" + B + "G" + B + "m1" + A + A + " " + A + "b:x.y" + B + "G-2" + B + "m2" + B + "t",
                        List.of(
                                new ListeningEntry(new ConfigKey("", "G", "a"), "m1"),
                                new ListeningEntry(new ConfigKey("t", "G-2", "b:x.y"), "m2"))),
                Arguments.of(
                        "a key listed twice keeps its last md5",
                        "d" + B + "G" + B + "old" + A + "d" + B + "G" + B + "new" + A,
                        List.of(new ListeningEntry(new ConfigKey("", "G", "d"), "new"))),
                Arguments.of(
                        "same dataId and group in two tenants are two keys",
                        "d" + B + "G" + B + "m" + A + "d" + B + "G" + B + "m" + B + "t" + A,
                        List.of(
                                new ListeningEntry(new ConfigKey("", "G", "d"), "m"),
                                new ListeningEntry(new ConfigKey("t", "G", "d"), "m"))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goodValues")
    void parsesWhatTheClientSends(String why, String value, List<ListeningEntry> expected) {
        assertEquals(expected, ListeningConfigs.parse(value), why);
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of("missing", null, "required"),
                Arguments.of("empty", "", "required"),
                Arguments.of("only separators", A + A + " " + A, "no entries"),
                Arguments.of("two fields", "d" + B + "G" + A, "2 fields"),
                Arguments.of("one field", "d" + A, "1 fields"),
                Arguments.of("five fields", "d" + B + "G" + B + "m" + B + "t" + B + "x" + A, "5 fields"),
                Arguments.of("second entry wrong", "d" + B + "G" + B + "m" + A + "e" + B + "G" + A, "entry 2"),
                Arguments.of("illegal dataId", "a/b" + B + "G" + B + "m" + A, "dataId"),
                Arguments.of("empty dataId", B + "G" + B + "m" + A, "dataId"),
                Arguments.of("illegal group", "d" + B + "g g" + B + "m" + A, "group"),
                Arguments.of("tenant with a control character", "d" + B + "G" + B + "m" + B + "t\u0007" + A, "tenant"),
                Arguments.of("absurd md5", "d" + B + "G" + B + "m".repeat(65) + A, "md5"),
                Arguments.of("too many entries", entries(ListeningConfigs.MAX_ENTRIES + 1), "more than 3000"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void rejectsMalformedValuesNamingTheField(String why, String value, String mentions) {
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> ListeningConfigs.parse(value), why);
        assertEquals(ListeningConfigs.FIELD, e.field(), why);
        assertTrue(e.getMessage().contains(mentions), why + ": '" + e.getMessage() + "' should mention " + mentions);
    }

    @Test
    void acceptsExactlyTheCap() {
        assertEquals(
                ListeningConfigs.MAX_ENTRIES,
                ListeningConfigs.parse(entries(ListeningConfigs.MAX_ENTRIES)).size());
    }

    private static String entries(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("d").append(i).append(B).append("G").append(B).append("m").append(A);
        }
        return sb.toString();
    }
}
