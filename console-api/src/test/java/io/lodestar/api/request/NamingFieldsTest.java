package io.lodestar.api.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.error.InvalidRequestException;
import io.lodestar.naming.model.BeatInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamingFieldsTest {

    @Test
    void metadataIsAJsonObjectOrNacosKeyValuePairs() {
        assertEquals(
                Map.of("a", "b", "n", "1", "t", "true"),
                NamingFields.metadata("metadata", "{\"a\":\"b\",\"n\":1,\"t\":true,\"gone\":null}"));
        assertEquals(Map.of("a", "b", "c", "d"), NamingFields.metadata("metadata", "a=b,c=d"));
        assertEquals(Map.of(), NamingFields.metadata("metadata", " "));
        assertEquals(Map.of(), NamingFields.metadata("metadata", null));
    }

    @Test
    void metadataThatIsNeitherIsRefusedNamingTheParameter() {
        for (String bad : List.of(
                "[1,2]",
                "\"text\"",
                "{\"a\":",
                "{\"a\":{\"b\":1}}",
                "{\"a\":[1]}",
                "{\"a\":\"b\"} trailing",
                "justtext",
                "a=",
                "=b",
                "a=b=c",
                "a=b,,c=d")) {
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> NamingFields.metadata("metadata", bad), bad);
            assertEquals("metadata", e.field(), bad);
        }
    }

    @Test
    void aBeatIsTheClientsBeatInfo() {
        BeatInfo b = NamingFields.beat(
                "{\"cluster\":\"c1\",\"ip\":\"127.0.0.1\",\"metadata\":{\"k\":\"v\"},\"period\":5000,"
                        + "\"port\":8080,\"scheduled\":false,\"serviceName\":\"G@@s\",\"stopped\":false,\"weight\":2.5}",
                null,
                null);
        assertEquals(new BeatInfo("127.0.0.1", 8080, 2.5, "c1", Map.of("k", "v"), "G@@s"), b);
        BeatInfo partial = NamingFields.beat("{\"serviceName\":\"s\"}", "127.0.0.2", 81);
        assertEquals("127.0.0.2", partial.ip());
        assertEquals(81, partial.port());
        assertEquals(1.0, partial.weight(), "a missing weight is 1, not 0");
    }

    @Test
    void aMalformedBeatIsRefusedNamingBeat() {
        for (String bad : List.of(
                "{",
                "[]",
                "42",
                "{\"ip\":\"1.2.3.4\",\"port\":\"x\"}",
                "{\"ip\":\"1.2.3.4\",\"port\":1,\"weight\":\"heavy\"}",
                "{\"ip\":7,\"port\":1}",
                "{\"ip\":\"1.2.3.4\",\"port\":1,\"metadata\":[1]}",
                "{\"ip\":\"1.2.3.4\",\"port\":1.5}")) {
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> NamingFields.beat(bad, null, null), bad);
            assertEquals("beat", e.field(), bad + ": " + e.getMessage());
        }
        InvalidRequestException noIp =
                assertThrows(InvalidRequestException.class, () -> NamingFields.beat("{\"port\":1}", null, null));
        assertEquals("ip", noIp.field());
    }

    @Test
    void clusterFiltersKeepTheirOrderAndSkipBlanks() {
        assertEquals(List.of("b", "a"), List.copyOf(NamingFields.clusterSet("b, a,,b")));
        assertTrue(NamingFields.clusterSet("").isEmpty());
    }
}
