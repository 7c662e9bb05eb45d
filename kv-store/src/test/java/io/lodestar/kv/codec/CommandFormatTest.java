package io.lodestar.kv.codec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.command.Cap;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Op;
import io.lodestar.kv.command.WriteResult;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Commands outlive builds in the Raft log, and results cross between members of two builds: bytes
 * written before ops could carry a cap still decode (without one), and a cap survives encoding.
 */
class CommandFormatTest {
    private static final HessianCodec COMMANDS = new HessianCodec(Command.CLASSES);
    private static final HessianCodec RESULTS = new HessianCodec(withResult());

    /**
     * A compare-and-put plus a delete as the build before caps encoded it: guard on {@code t NUL g NUL
     * d} in "config" at revision 0, put "v" there, delete it from "config_beta".
     */
    private static final String COMMAND_BEFORE_CAPS = "4fae696f2e6c6f6465737461722e6b762e636f6d6d616e642e436f6d6d616e64"
            + "9208636f6d7061726573036f70736f905674001f5b696f2e6c6f6465737461722e6b762e636f6d6d616e642e436f6d"
            + "706172656e014fae696f2e6c6f6465737461722e6b762e636f6d6d616e642e436f6d7061726594086b657973706163"
            + "651365787065637465644d6f645265766973696f6e036b657910657870656374656456616c75654d64356f9106636f"
            + "6e666967e02574006700644e7a5674001a5b696f2e6c6f6465737461722e6b762e636f6d6d616e642e4f706e024fa9"
            + "696f2e6c6f6465737461722e6b762e636f6d6d616e642e4f7094046b696e64086b65797370616365036b6579057661"
            + "6c75656f929106636f6e66696725740067006421766f92920b636f6e6669675f626574612574006700644e7a";
    /** {@code new WriteResult(true, 7, 9)} as the build before caps encoded it. */
    private static final String RESULT_BEFORE_CAPS =
            "4fb2696f2e6c6f6465737461722e6b762e636f6d6d616e642e5772697465526573"
                    + "756c749309737563636565646564087265766973696f6e05696e6465786f9054e7e9";

    private static Set<Class<?>> withResult() {
        Set<Class<?>> classes = new HashSet<>(Command.CLASSES);
        classes.add(WriteResult.class);
        return classes;
    }

    @Test
    void aCommandWrittenBeforeCapsDecodesWithoutOne() {
        Command old = COMMANDS.decode(HexFormat.of().parseHex(COMMAND_BEFORE_CAPS), Command.class);

        assertEquals(1, old.compares().size());
        assertEquals(0, old.compares().get(0).expectedModRevision());
        Op put = old.ops().get(0);
        assertEquals(Op.PUT, put.kind());
        assertEquals("config", put.keyspace());
        assertArrayEquals("t\0g\0d".getBytes(UTF_8), put.key());
        assertArrayEquals("v".getBytes(UTF_8), put.value());
        assertNull(put.cap());
        assertEquals(Op.DELETE, old.ops().get(1).kind());
        assertNull(old.ops().get(1).cap());
    }

    @Test
    void aResultWrittenBeforeCapsDecodesWithoutOne() {
        WriteResult old = RESULTS.decode(HexFormat.of().parseHex(RESULT_BEFORE_CAPS), WriteResult.class);

        assertTrue(old.succeeded());
        assertEquals(7, old.revision());
        assertEquals(9, old.index());
        assertNull(old.overCap());
    }

    @Test
    void aCapRoundTripsInACommandAndInAResult() {
        Cap cap = Cap.of("configs.per-namespace", 100, "the configs of namespace 'dev'")
                .withRoom(4);
        Command command = Command.batch(List.of(
                Op.put("config", "dev\0g\0d".getBytes(UTF_8), new byte[] {1}).withCap(cap)));

        Cap decoded = COMMANDS.decode(COMMANDS.encode(command), Command.class)
                .ops()
                .get(0)
                .cap();
        assertCap(cap, decoded);

        WriteResult refused = RESULTS.decode(RESULTS.encode(new WriteResult(false, 3, 5, cap)), WriteResult.class);
        assertCap(cap, refused.overCap());
    }

    private static void assertCap(Cap expected, Cap actual) {
        assertEquals(expected.limit(), actual.limit());
        assertEquals(expected.max(), actual.max());
        assertEquals(expected.room(), actual.room());
        assertEquals(expected.what(), actual.what());
    }
}
