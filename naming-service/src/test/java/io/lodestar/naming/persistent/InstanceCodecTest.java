package io.lodestar.naming.persistent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A persistent instance stored by earlier builds reads the same and re-encodes to the same bytes. */
class InstanceCodecTest {
    /** InstanceCodec's output before FieldOutput, for the instance below. */
    private static final String OLD_HEX =
            "01010000000469642d314004000000000000010000000002000000047a6f6e65000000046120c3bc0000000776657273696f6e0000000131";

    @Test
    void storedByEarlierBuildsDecodesAndReEncodesToTheSameBytes() {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("zone", "a ü");
        metadata.put("version", "1");
        Instance i = new Instance("id-1", "10.0.0.1", 8080, 2.5, true, false, false, "web", metadata);
        byte[] old = HexFormat.of().parseHex(OLD_HEX);
        Instance decoded = InstanceCodec.decode(new InstanceAddress("web", "10.0.0.1", 8080), old);
        assertEquals(i, decoded);
        assertArrayEquals(old, InstanceCodec.encode(decoded));
    }
}
