package io.lodestar.kv.raftport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.remoting.Connection;
import com.alipay.sofa.jraft.rpc.ProtobufMsgFactory;
import com.alipay.sofa.jraft.rpc.RpcContext;
import com.alipay.sofa.jraft.rpc.RpcProcessor;
import com.alipay.sofa.jraft.rpc.RpcRequests.TimeoutNowRequest;
import com.alipay.sofa.jraft.rpc.RpcRequests.TimeoutNowResponse;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcServer;
import com.alipay.sofa.jraft.util.Endpoint;
import io.lodestar.kv.RaftPortSettings;
import io.lodestar.kv.testing.FreePorts;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Raft port's handshake, message by message, against a real bolt server on 127.0.0.1: only a
 * connection that proved the secret, for its own challenge, reaches a processor, and only in its
 * own name; a client talks only to a server that proves the secret back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RaftPortHandshakeTest {
    private static final byte[] SECRET = "raft-port-test-secret".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OTHER = "another-cluster-secret".getBytes(StandardCharsets.UTF_8);
    private static final String MEMBER = "127.0.0.1:17001";
    private static final int TIMEOUT_MS = 3_000;

    /** What the gated processor was asked, by sender. */
    final List<String> served = new CopyOnWriteArrayList<>();

    String address;
    Endpoint endpoint;
    RpcServer server;
    com.alipay.remoting.rpc.RpcClient raw;

    @BeforeEach
    void start() {
        ProtobufMsgFactory.load();
        HandshakeSerializer.register();
        int port = FreePorts.next();
        address = "127.0.0.1:" + port;
        endpoint = new Endpoint("127.0.0.1", port);
        server = serve(port, SECRET, new RecordingProcessor());
        raw = new com.alipay.remoting.rpc.RpcClient();
        raw.startup();
    }

    @AfterEach
    void stop() {
        raw.shutdown();
        server.shutdown();
    }

    private static RpcServer serve(int port, byte[] secret, RpcProcessor<?> processor) {
        RpcServer s = AuthenticatedRpcServer.create("127.0.0.1", port, secret, RaftPortSettings.DEFAULT);
        s.registerProcessor(processor);
        assertTrue(s.init(null), "listening on " + port);
        return s;
    }

    private final class RecordingProcessor implements RpcProcessor<TimeoutNowRequest> {
        @Override
        public void handleRequest(RpcContext ctx, TimeoutNowRequest request) {
            served.add(request.getServerId());
            ctx.sendResponse(
                    TimeoutNowResponse.newBuilder().setTerm(1).setSuccess(true).build());
        }

        @Override
        public String interest() {
            return TimeoutNowRequest.class.getName();
        }
    }

    private static TimeoutNowRequest from(String sender) {
        return TimeoutNowRequest.newBuilder()
                .setGroupId("g")
                .setServerId(sender)
                .setPeerId(MEMBER)
                .setTerm(1)
                .build();
    }

    private AuthenticatingRpcClient client(byte[] secret, String self) {
        AuthenticatingRpcClient c = new AuthenticatingRpcClient();
        c.init(new CredentialedRpcOptions(new PeerCredentials(secret, self)));
        return c;
    }

    private HandshakeMessage exchange(Connection connection, HandshakeMessage message) throws Exception {
        return (HandshakeMessage) raw.invokeSync(connection, message, TIMEOUT_MS);
    }

    /** A new connection of the raw client, outside its pool. */
    private Connection connection() throws Exception {
        return raw.getConnectionManager().create(address, TIMEOUT_MS);
    }

    private HandshakeMessage validProof(byte[] challenge, String peer) {
        byte[] nonce = HandshakeMacs.nonce();
        return HandshakeMessage.proof(peer, nonce, new HandshakeMacs(SECRET).clientProof(challenge, nonce, peer));
    }

    @Test
    void aMemberWithTheSecretIsServedInItsOwnName() throws Exception {
        AuthenticatingRpcClient member = client(SECRET, MEMBER);
        try {
            Object answer = member.invokeSync(endpoint, from(MEMBER), TIMEOUT_MS);
            assertInstanceOf(TimeoutNowResponse.class, answer);
            member.invokeSync(endpoint, from(MEMBER + "::5"), TIMEOUT_MS);
            assertEquals(List.of(MEMBER, MEMBER + "::5"), served, "its address in either spelling");

            assertThrows(Exception.class, () -> member.invokeSync(endpoint, from("127.0.0.1:17002"), TIMEOUT_MS));
            assertEquals(2, served.size(), "a request in another member's name is not served");
        } finally {
            member.shutdown();
        }
    }

    @Test
    void nothingIsServedOnAConnectionThatDidNotProveTheSecret() throws Exception {
        Connection connection = connection();
        assertThrows(Exception.class, () -> raw.invokeSync(connection, from(MEMBER), TIMEOUT_MS));
        assertTrue(served.isEmpty());

        AuthenticatingRpcClient stranger = client(OTHER, MEMBER);
        try {
            HandshakeRefusedException e = assertThrows(
                    HandshakeRefusedException.class, () -> stranger.invokeSync(endpoint, from(MEMBER), TIMEOUT_MS));
            assertTrue(e.getMessage().contains("secret"), e.getMessage());
        } finally {
            stranger.shutdown();
        }
        assertTrue(served.isEmpty());
    }

    @Test
    void badHandshakeMessagesAreRefusedWithoutAMac() throws Exception {
        Connection connection = connection();
        byte[] challenge = exchange(connection, HandshakeMessage.hello()).nonce();

        byte[] nonce = HandshakeMacs.nonce();
        List<HandshakeMessage> bad = List.of(
                new HandshakeMessage((byte) 9, nonce, nonce, MEMBER), // no such step
                HandshakeMessage.decode(new byte[] {HandshakeMessage.PROOF}), // too short
                HandshakeMessage.challenge(nonce), // a server's message
                HandshakeMessage.proof(MEMBER, nonce, new HandshakeMacs(OTHER).clientProof(challenge, nonce, MEMBER)),
                // the challenge was used up by the wrong proof: a right one no longer counts
                validProof(challenge, MEMBER));
        for (HandshakeMessage message : bad) {
            HandshakeMessage answer = exchange(connection, message);
            assertEquals(HandshakeMessage.REFUSED, answer.step(), "step " + message.step());
            assertArrayEquals(new byte[HandshakeMessage.MAC_LENGTH], answer.mac(), "nothing MAC'd");
        }
        assertThrows(Exception.class, () -> raw.invokeSync(connection, from(MEMBER), TIMEOUT_MS));
        assertTrue(served.isEmpty());
    }

    @Test
    void aProofCountsOnlyForItsOwnChallengeAndOnlyOnce() throws Exception {
        Connection first = connection();
        HandshakeMessage proof =
                validProof(exchange(first, HandshakeMessage.hello()).nonce(), MEMBER);
        assertEquals(HandshakeMessage.ACCEPTED, exchange(first, proof).step());
        assertInstanceOf(TimeoutNowResponse.class, raw.invokeSync(first, from(MEMBER), TIMEOUT_MS));
        assertEquals(
                HandshakeMessage.REFUSED,
                exchange(first, HandshakeMessage.hello()).step(),
                "one handshake");
        first.close();

        Connection second = connection();
        HandshakeMessage challenge = exchange(second, HandshakeMessage.hello());
        assertEquals(HandshakeMessage.REFUSED, exchange(second, proof).step(), "a captured proof replayed");
        assertEquals(
                HandshakeMessage.REFUSED,
                exchange(connection(), validProof(challenge.nonce(), "no member"))
                        .step());
        assertEquals(1, served.size());
    }

    @Test
    void aClientSendsNothingToAServerThatCannotProveTheSecret() throws Exception {
        int port = FreePorts.next();
        List<String> impostorServed = new CopyOnWriteArrayList<>();
        // accepts any proof, answering with a MAC it cannot make
        RpcServer impostor = new BoltRpcServer(new com.alipay.remoting.rpc.RpcServer("127.0.0.1", port, true));
        impostor.registerProcessor(new RpcProcessor<HandshakeMessage>() {
            @Override
            public void handleRequest(RpcContext ctx, HandshakeMessage message) {
                ctx.sendResponse(
                        message.step() == HandshakeMessage.HELLO
                                ? HandshakeMessage.challenge(HandshakeMacs.nonce())
                                : HandshakeMessage.accepted(HandshakeMacs.nonce()));
            }

            @Override
            public String interest() {
                return HandshakeMessage.class.getName();
            }
        });
        impostor.registerProcessor(new RpcProcessor<TimeoutNowRequest>() {
            @Override
            public void handleRequest(RpcContext ctx, TimeoutNowRequest request) {
                impostorServed.add(request.getServerId());
                ctx.sendResponse(TimeoutNowResponse.newBuilder()
                        .setTerm(1)
                        .setSuccess(true)
                        .build());
            }

            @Override
            public String interest() {
                return TimeoutNowRequest.class.getName();
            }
        });
        assertTrue(impostor.init(null));
        AuthenticatingRpcClient member = client(SECRET, MEMBER);
        try {
            HandshakeRefusedException e = assertThrows(
                    HandshakeRefusedException.class,
                    () -> member.invokeSync(new Endpoint("127.0.0.1", port), from(MEMBER), TIMEOUT_MS));
            assertTrue(e.getMessage().contains("could not prove"), e.getMessage());
            assertTrue(impostorServed.isEmpty(), "the request never left the client");
        } finally {
            member.shutdown();
            impostor.shutdown();
        }
    }

    @Test
    void aClientWithoutCredentialsSendsNothing() {
        AuthenticatingRpcClient none = new AuthenticatingRpcClient();
        none.init(new com.alipay.sofa.jraft.option.RpcOptions());
        try {
            assertThrows(HandshakeRefusedException.class, () -> none.invokeSync(endpoint, from(MEMBER), TIMEOUT_MS));
            assertTrue(served.isEmpty());
        } finally {
            none.shutdown();
        }
    }
}
