package io.lodestar.kv.forward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.alipay.sofa.jraft.rpc.RpcClient;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.util.Endpoint;
import com.alipay.sofa.jraft.util.RpcFactoryHelper;
import io.lodestar.kv.RaftPortSettings;
import io.lodestar.kv.command.Command;
import io.lodestar.kv.command.WriteResult;
import io.lodestar.kv.raftport.AuthenticatedRpcServer;
import io.lodestar.kv.raftport.CredentialedRpcOptions;
import io.lodestar.kv.raftport.PeerCredentials;
import io.lodestar.kv.testing.FreePorts;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The node-to-node channel over real bolt servers: what a peer that can capture frames, or send
 * its own without the secret, gets from it.
 */
class ForwardChannelTest {
    private static final byte[] SECRET = "the-cluster-secret-for-this-test".getBytes(StandardCharsets.UTF_8);

    /** The local node as the channel sees it: it records what it was asked to propose. */
    static final class RecordingLeader implements LeaderProposer {
        final List<Command> proposed = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<WriteResult> proposeAsLeader(Command command) {
            proposed.add(command);
            return CompletableFuture.completedFuture(new WriteResult(true, proposed.size(), proposed.size()));
        }

        @Override
        public NodeStatus status() {
            return new NodeStatus("LEADER", 1, null);
        }
    }

    final RecordingLeader a = new RecordingLeader();
    final RecordingLeader b = new RecordingLeader();
    String addressA;
    String addressB;
    RpcServer serverA;
    RpcServer serverB;
    RpcClient raw;

    @BeforeEach
    void start() {
        addressA = "127.0.0.1:" + FreePorts.next();
        addressB = "127.0.0.1:" + FreePorts.next();
        serverA = serve(addressA, a);
        serverB = serve(addressB, b);
        raw = RpcFactoryHelper.rpcFactory().createRpcClient();
        // a member's client: the frames' own checks are what these tests are about
        raw.init(new CredentialedRpcOptions(new PeerCredentials(SECRET, "127.0.0.1:1")));
    }

    private static RpcServer serve(String address, LeaderProposer local) {
        Endpoint e = new Endpoint("127.0.0.1", Integer.parseInt(address.substring(address.indexOf(':') + 1)));
        RpcServer server = AuthenticatedRpcServer.create(e.getIp(), e.getPort(), SECRET, RaftPortSettings.DEFAULT);
        ForwardServer.register(server, SECRET, address, local, Map.of());
        assertTrue(server.init(null), "listening on " + address);
        return server;
    }

    @AfterEach
    void stop() {
        raw.shutdown();
        serverA.shutdown();
        serverB.shutdown();
    }

    private ForwardFrame sendRaw(String to, ForwardFrame frame) throws Exception {
        Endpoint e = new Endpoint("127.0.0.1", Integer.parseInt(to.substring(to.indexOf(':') + 1)));
        return (ForwardFrame) raw.invokeSync(e, frame, 5_000);
    }

    private static Command write() {
        return Command.put("ks", "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aForwardedWriteIsProposedByTheMemberItWasSentTo() throws Exception {
        try (ForwardClient client = new ForwardClient(new PeerCredentials(SECRET, "127.0.0.1:1"))) {
            client.write(addressA, write(), 5_000).get(10, TimeUnit.SECONDS);
        }
        assertEquals(1, a.proposed.size());
        assertEquals(0, b.proposed.size());
    }

    @Test
    void aWriteCapturedOnItsWayToOneMemberIsRefusedByAnother() throws Exception {
        FrameCodec codec = new FrameCodec(SECRET);
        ForwardFrame captured = codec.seal(
                new ForwardRequest(ForwardRequest.WRITE, "127.0.0.1:1", System.currentTimeMillis(), 7L, write()),
                FrameCodec.toMember(addressA));
        ForwardFrame answer = sendRaw(addressB, captured);
        assertEquals(0, answer.body().length, "no MAC'd answer");
        assertEquals(0, b.proposed.size(), "nothing proposed at the member it was not for");
        sendRaw(addressA, captured);
        assertEquals(1, a.proposed.size(), "its own destination takes it");
        // a replay is refused (its sender may know the secret: the refusal is sealed and says why)
        assertTrue(sendRaw(addressA, captured).body().length > 0);
        assertEquals(1, a.proposed.size(), "but not proposed again");
    }

    @Test
    void aFrameWithoutTheSecretGetsNoAnswerToTestAGuessAgainst() throws Exception {
        for (ForwardFrame garbage : List.of(
                new ForwardFrame(new byte[0]),
                new ForwardFrame("not a frame at all, but long enough for a MAC".getBytes(StandardCharsets.UTF_8)),
                new FrameCodec("a-guessed-secret-of-enough-length".getBytes(StandardCharsets.UTF_8))
                        .seal(
                                new ForwardRequest(ForwardRequest.STATUS, "x:1", System.currentTimeMillis(), 9L, null),
                                FrameCodec.toMember(addressA)))) {
            assertEquals(0, sendRaw(addressA, garbage).body().length);
        }
        assertEquals(0, a.proposed.size());
    }
}
