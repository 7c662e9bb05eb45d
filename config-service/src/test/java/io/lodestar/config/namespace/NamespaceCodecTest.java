package io.lodestar.config.namespace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** A namespace stored by earlier builds reads the same and re-encodes to the same bytes. */
class NamespaceCodecTest {
    /** NamespaceCodec's output before FieldOutput, for the namespaces below. */
    private static final String WITH_DESC_HEX =
            "01000e446576656c6f706d656e7420c3bc01000c74686520646576207465616d00000000000000010000000000000002";

    private static final String WITHOUT_DESC_HEX = "01000a50726f64756374696f6e0000000000000000030000000000000004";

    @Test
    void storedByEarlierBuildsDecodesAndReEncodesToTheSameBytes() {
        Namespace withDesc = new Namespace("dev", "Development ü", "the dev team", 1L, 2L);
        Namespace without = new Namespace("prod", "Production", null, 3L, 4L);
        for (Object[] c : new Object[][] {{withDesc, WITH_DESC_HEX}, {without, WITHOUT_DESC_HEX}}) {
            Namespace ns = (Namespace) c[0];
            byte[] old = HexFormat.of().parseHex((String) c[1]);
            Namespace decoded = NamespaceCodec.decode(ns.id(), old);
            assertEquals(ns, decoded);
            assertArrayEquals(old, NamespaceCodec.encode(decoded));
        }
    }
}
