package io.lodestar.api.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FormCodecTest {
    private static byte[] form(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void queryAndFormAreDecodedTogetherAsJavalinDecodesThem() {
        Map<String, String> p = FormCodec.params(
                "serviceName=G%40%40svc&ip=127.0.0.1&flag", form("beat=%7B%22ip%22%3A1%7D&metadata=a+b%C3%A9&empty="));
        assertEquals(
                Map.of(
                        "serviceName",
                        "G@@svc",
                        "ip",
                        "127.0.0.1",
                        "flag",
                        "",
                        "beat",
                        "{\"ip\":1}",
                        "metadata",
                        "a bé",
                        "empty",
                        ""),
                p);
        assertEquals(Map.of(), FormCodec.params(null, new byte[0]));
        assertEquals(Map.of("a", "1"), FormCodec.params("&a=1&&", new byte[0]), "empty parts are skipped");
    }

    @Test
    void aRepeatedNameOrAMalformedEscapeIsLeftToTheRoute() {
        assertNull(FormCodec.params("a=1&a=2", new byte[0]));
        assertNull(FormCodec.params("a=1", form("a=2")), "in the query and the form: the route picks the form's");
        assertNull(FormCodec.params("a=%zz", new byte[0]));
        assertNull(FormCodec.params(null, form("a=%E")));
    }
}
