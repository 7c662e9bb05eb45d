package io.lodestar.kv.codec;

import static io.lodestar.kv.codec.HessianBytes.hessian;
import static io.lodestar.kv.codec.HessianBytes.messages;
import static io.lodestar.kv.codec.HessianBytes.orderedMap;
import static io.lodestar.kv.codec.HessianBytes.writeObjectNamed;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.remoting.BizContext;
import com.alipay.remoting.CustomSerializerManager;
import com.alipay.remoting.DefaultCustomSerializer;
import com.alipay.remoting.ResponseStatus;
import com.alipay.remoting.exception.DeserializationException;
import com.alipay.remoting.exception.SerializationException;
import com.alipay.remoting.rpc.ResponseCommand;
import com.alipay.remoting.rpc.RpcClient;
import com.alipay.remoting.rpc.RpcServer;
import com.alipay.remoting.rpc.exception.InvokeServerException;
import com.alipay.remoting.rpc.exception.RpcServerException;
import com.alipay.remoting.rpc.protocol.RpcResponseCommand;
import com.alipay.remoting.rpc.protocol.SyncUserProcessor;
import com.alipay.remoting.serialization.HessianSerializer;
import com.alipay.remoting.serialization.SerializerManager;
import com.alipay.sofa.jraft.rpc.RpcContext;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.caucho.hessian.io.Hessian2Output;
import io.lodestar.kv.RaftPortSettings;
import io.lodestar.kv.WriteOutcomeUnknownException;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.forward.ForwardClient;
import io.lodestar.kv.forward.ForwardFrame;
import io.lodestar.kv.raftport.AuthenticatedRpcServer;
import io.lodestar.kv.raftport.PeerCredentials;
import io.lodestar.kv.testing.FreePorts;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real bolt over TCP on 127.0.0.1: a stub server answers with whatever status, class name,
 * serializer slot and Hessian bytes a test asks for, and a bolt client, with {@link
 * BoltSerialization#restrict()} in force, decodes the answer as it would a peer's.
 */
class BoltResponseAllowlistTest {
    /** Named in the stub's answers only as a string; the test never loads it itself. */
    private static final String GADGET = BoltResponseAllowlistTest.class.getName() + "$Gadget";

    private static final String STUB_FAILURE = "the stub processor failed on purpose";
    private static final int TIMEOUT_MS = 5_000;

    static final AtomicInteger GADGETS_CONSTRUCTED = new AtomicInteger();

    private static RpcServer server;
    private static RpcClient client;
    private static String address;

    @BeforeAll
    static void startStubServerAndClient() {
        BoltSerialization.restrict();
        if (CustomSerializerManager.getCustomSerializer(Answer.class.getName()) == null) {
            CustomSerializerManager.registerCustomSerializer(Answer.class.getName(), new AnswerSerializer());
        }
        int port = FreePorts.next();
        server = new RpcServer("127.0.0.1", port, false);
        server.registerUserProcessor(new StubProcessor());
        server.startup();
        client = new RpcClient();
        client.startup();
        address = "127.0.0.1:" + port;
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (server != null) {
            server.shutdown();
        }
    }

    @BeforeEach
    void resetProbe() {
        GADGETS_CONSTRUCTED.set(0);
    }

    // --- what the allowlist refuses ---

    @ParameterizedTest
    @ValueSource(strings = {"ALONE", "MAP_KEY", "CAUSE"})
    void gadgetInAResponseFailsTheCallBeforeItsClassIsLoaded(String shape) {
        RecordingLoader loader = new RecordingLoader();

        Throwable thrown = thrownWithContextLoader(loader, () -> client.invokeSync(address, shape, TIMEOUT_MS));

        assertInstanceOf(DeserializationException.class, thrown, "the call did not fail on decoding: " + thrown);
        Throwable refusal = causeWithMessage(thrown, "class not allowed in payload: " + GADGET);
        assertNotNull(refusal, "the allowlist did not refuse the gadget: " + messages(thrown));
        assertTrue(
                Arrays.stream(refusal.getStackTrace())
                        .anyMatch(frame -> frame.getClassName().startsWith(BoltResponseAllowlistTest.class.getName())),
                "the answer was not decoded on the calling thread, so the recording loader proves nothing");
        assertFalse(loader.asked(GADGET), "the gadget's class was looked up");
        assertEquals(0, GADGETS_CONSTRUCTED.get(), "a gadget was constructed");

        // control: bolt's own serializer brings the gadget in those same bytes to life
        RecordingLoader unrestricted = new RecordingLoader();
        Answer answer = ANSWERS.get(shape);
        thrownWithContextLoader(
                unrestricted, () -> new HessianSerializer().deserialize(answer.content, answer.className));
        assertTrue(unrestricted.asked(GADGET), "control: plain Hessian loads the gadget's class");
        assertTrue(GADGETS_CONSTRUCTED.get() > 0, "control: plain Hessian constructs the gadget");
    }

    @Test
    void responseNamingASerializerSlotBoltLeavesEmptyFailsTheCall() {
        Throwable thrown = thrownBy(() -> client.invokeSync(address, "SLOT_2", TIMEOUT_MS));

        assertInstanceOf(DeserializationException.class, thrown, "the call did not fail on decoding: " + thrown);
        assertEquals(0, GADGETS_CONSTRUCTED.get(), "a gadget was constructed");
    }

    // --- what it lets through: bolt's own error path ---

    @Test
    void noProcessorAnswerReachesTheCallerAsABoltExceptionWithItsMessage() {
        Throwable thrown = thrownBy(() -> client.invokeSync(address, 42, TIMEOUT_MS));

        assertInstanceOf(InvokeServerException.class, thrown, messages(thrown));
        RpcServerException cause = assertInstanceOf(RpcServerException.class, thrown.getCause(), messages(thrown));
        assertEquals("No user processor found for request: java.lang.Integer", cause.getMessage());
    }

    @Test
    void exceptionInTheServerReachesTheCallerWithItsMessageAndStackTrace() {
        Throwable thrown = thrownBy(() -> client.invokeSync(address, "FAIL", TIMEOUT_MS));

        assertInstanceOf(InvokeServerException.class, thrown, messages(thrown));
        RpcServerException cause = assertInstanceOf(RpcServerException.class, thrown.getCause(), messages(thrown));
        assertTrue(cause.getMessage().contains(STUB_FAILURE), cause.getMessage());
        assertTrue(
                Arrays.stream(cause.getStackTrace())
                        .anyMatch(frame -> frame.getClassName().equals(StubProcessor.class.getName())),
                "the server's stack trace did not come along: " + Arrays.toString(cause.getStackTrace()));
    }

    @Test
    void serverRefusesToEncodeAClassOutsideTheAllowlistAndSaysSo() {
        Throwable thrown = thrownBy(() -> client.invokeSync(address, "UNENCODABLE", TIMEOUT_MS));

        SerializationException e = assertInstanceOf(SerializationException.class, thrown, messages(thrown));
        assertTrue(e.isServerSide(), messages(thrown));
        assertInstanceOf(RpcServerException.class, e.getCause(), messages(thrown));
    }

    @Test
    void restrictingAgainKeepsTheSameSerializerInBoltsHessianSlot() {
        BoltSerialization.restrict();
        BoltSerialization.restrict();

        assertSame(BoltErrorSerializer.INSTANCE, SerializerManager.getSerializer(SerializerManager.Hessian2));
    }

    /**
     * A member that proved the secret but answers a forwarded write with a gadget: bolt drops the
     * answer it cannot decode without calling back, and the write still fails by its deadline.
     */
    @Test
    void forwardedWriteAnsweredWithAGadgetFailsByItsDeadlineAndBuildsNothing() throws Exception {
        byte[] secret = "allowlist-test-secret".getBytes(UTF_8);
        int port = FreePorts.next();
        com.alipay.sofa.jraft.rpc.RpcServer rogue =
                AuthenticatedRpcServer.create("127.0.0.1", port, secret, RaftPortSettings.DEFAULT);
        rogue.registerProcessor(new RpcProcessor<Object>() {
            @Override
            public void handleRequest(RpcContext ctx, Object frame) {
                ctx.sendResponse(ANSWERS.get("ALONE"));
            }

            @Override
            public String interest() {
                return ForwardFrame.class.getName();
            }
        });
        assertTrue(rogue.init(null));
        try (ForwardClient member = new ForwardClient(new PeerCredentials(secret, "127.0.0.1:1"))) {
            long t0 = System.nanoTime();
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> member.write(
                                    "127.0.0.1:" + port,
                                    Command.put("ks", "k".getBytes(UTF_8), "v".getBytes(UTF_8)),
                                    1_000)
                            .get(10, TimeUnit.SECONDS));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertInstanceOf(WriteOutcomeUnknownException.class, e.getCause(), String.valueOf(e.getCause()));
            assertTrue(tookMs < 5_000, "failed after " + tookMs + " ms");
            assertEquals(0, GADGETS_CONSTRUCTED.get(), "a gadget was constructed");
        } finally {
            rogue.shutdown();
        }
    }

    // --- the stub server ---

    /**
     * What the stub answers to a request naming one: a gadget alone, as a key of a map, as the cause
     * of the exception in an error response, and alone again under a serializer slot bolt leaves empty.
     */
    private static final Map<String, Answer> ANSWERS = Map.of(
            "ALONE",
            new Answer(
                    ResponseStatus.SUCCESS,
                    GADGET,
                    SerializerManager.Hessian2,
                    hessian(BoltResponseAllowlistTest::writeGadget)),
            // an untyped map, as Hessian writes a java.util.HashMap: its put() calls the key's
            // hashCode(), where the public gadget chains start
            "MAP_KEY",
            new Answer(ResponseStatus.SUCCESS, HashMap.class.getName(), SerializerManager.Hessian2, hessian(out -> {
                out.writeMapBegin(null);
                writeGadget(out);
                out.writeString("value");
                out.writeMapEnd();
            })),
            // an error response: the one path on which bolt decodes Hessian for Lodestar
            "CAUSE",
            new Answer(
                    ResponseStatus.SERVER_EXCEPTION,
                    RpcServerException.class.getName(),
                    SerializerManager.Hessian2,
                    hessian(out -> writeObjectNamed(
                            out,
                            RpcServerException.class.getName(),
                            orderedMap("detailMessage", "server failed", "cause", (HessianBytes.Writer)
                                    BoltResponseAllowlistTest::writeGadget)))),
            "SLOT_2",
            new Answer(ResponseStatus.SUCCESS, GADGET, (byte) 2, hessian(BoltResponseAllowlistTest::writeGadget)));

    /** Answers a request naming an {@link Answer}, fails on "FAIL", returns an unencodable map on "UNENCODABLE". */
    static final class StubProcessor extends SyncUserProcessor<String> {
        @Override
        public Object handleRequest(BizContext ctx, String request) {
            return switch (request) {
                case "FAIL" -> throw new IllegalStateException(STUB_FAILURE);
                case "UNENCODABLE" -> new HashMap<>(Map.of("answer", "outside the allowlist"));
                default -> ANSWERS.get(request);
            };
        }

        @Override
        public String interest() {
            return String.class.getName();
        }
    }

    /** A response as the stub sends it: status, class name, serializer slot and content as given. */
    static final class Answer {
        final ResponseStatus status;
        final String className;
        final byte serializer;
        final byte[] content;

        Answer(ResponseStatus status, String className, byte serializer, byte[] content) {
            this.status = status;
            this.className = className;
            this.serializer = serializer;
            this.content = content;
        }
    }

    /**
     * Writes an {@link Answer} into the response in place of itself. The client finds no custom
     * serializer under the class name it reads, so its bolt decodes the content with the slot named.
     */
    static final class AnswerSerializer extends DefaultCustomSerializer {
        @Override
        public <T extends ResponseCommand> boolean serializeContent(T response) {
            RpcResponseCommand cmd = (RpcResponseCommand) response;
            Answer answer = (Answer) cmd.getResponseObject();
            cmd.setResponseStatus(answer.status);
            cmd.setSerializer(answer.serializer);
            cmd.setClazz(answer.className.getBytes(UTF_8));
            cmd.setContent(answer.content);
            return true;
        }
    }

    /**
     * Stands for a gadget: Hessian instantiates it through this constructor, which counts. A
     * Throwable, so that it also fits the cause of an exception.
     */
    static final class Gadget extends Exception {
        private static final long serialVersionUID = 1L;

        Gadget() {
            GADGETS_CONSTRUCTED.incrementAndGet();
        }
    }

    /** A context class loader that records every class Hessian asks it for. */
    private static final class RecordingLoader extends ClassLoader {
        private final Set<String> asked = ConcurrentHashMap.newKeySet();

        RecordingLoader() {
            super(BoltResponseAllowlistTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            asked.add(name);
            return super.loadClass(name, resolve);
        }

        boolean asked(String name) {
            return asked.contains(name);
        }
    }

    // --- helpers ---

    /** What {@code call} threw, or null. */
    private static Throwable thrownBy(Callable<?> call) {
        try {
            call.call();
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    /** What {@code call} threw, or null, with {@code loader} as this thread's context class loader. */
    private static Throwable thrownWithContextLoader(ClassLoader loader, Callable<?> call) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return thrownBy(call);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static Throwable causeWithMessage(Throwable e, String text) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains(text)) {
                return t;
            }
        }
        return null;
    }

    private static void writeGadget(Hessian2Output out) throws IOException {
        writeObjectNamed(out, GADGET, Map.of("detailMessage", "touch /tmp/pwned"));
    }
}
