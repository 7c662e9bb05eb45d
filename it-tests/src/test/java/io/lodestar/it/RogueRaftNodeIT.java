package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.alipay.sofa.jraft.entity.RaftOutter.SnapshotMeta;
import com.alipay.sofa.jraft.option.RpcOptions;
import com.alipay.sofa.jraft.rpc.CliRequests;
import com.alipay.sofa.jraft.rpc.ProtobufMsgFactory;
import com.alipay.sofa.jraft.rpc.RpcClient;
import com.alipay.sofa.jraft.rpc.RpcRequests;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcClient;
import com.alipay.sofa.jraft.util.Endpoint;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import io.lodestar.kv.raftport.AuthenticatingRpcClient;
import io.lodestar.kv.raftport.CredentialedRpcOptions;
import io.lodestar.kv.raftport.HandshakeRefusedException;
import io.lodestar.kv.raftport.PeerCredentials;
import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Processes that reach a group's Raft port without its cluster secret: one with no secret at
 * all (JRaft's stock client), one with another secret. Each sends every member a higher-term
 * AppendEntries, a RequestVote, an InstallSnapshot pointing at itself, AddPeer, ResetPeer and
 * GetPeers. None gets an answer, nor does a holder of the secret that names another member as
 * the sender, and the group keeps its leader, term, configuration and data.
 */
class RogueRaftNodeIT {
    private static final String GROUP = "lodestar";
    private static final String ROGUE = "127.0.0.1:1";
    private static final int TIMEOUT_MS = 3_000;

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void rogueNodesWithoutTheClusterSecretChangeNothing() throws Exception {
        List<ServerProcess> nodes = cluster.start(3);
        ServerProcess leader = cluster.leader();
        assertEquals(200, ConfigApi.publish(leader, "rogue.target", "v1").status());
        cluster.awaitConverged(Duration.ofSeconds(30));
        State before = State.of(nodes);

        ProtobufMsgFactory.load(); // JRaft's own messages travel as protobuf, as a node sends them
        RpcClient noSecret = new BoltRpcClient(new com.alipay.remoting.rpc.RpcClient());
        noSecret.init(new RpcOptions());
        RpcClient wrongSecret = new AuthenticatingRpcClient();
        wrongSecret.init(new CredentialedRpcOptions(new PeerCredentials(
                "not-the-cluster-secret".getBytes(StandardCharsets.UTF_8),
                nodes.get(1).raftAddress())));
        // A holder of the secret proves who it is, and may not speak in another member's name.
        RpcClient otherName = new AuthenticatingRpcClient();
        otherName.init(new CredentialedRpcOptions(new PeerCredentials(
                LodestarCluster.SECRET.getBytes(StandardCharsets.UTF_8),
                nodes.get(1).raftAddress())));
        try {
            for (ServerProcess target : nodes) {
                for (Message attack : attacks(target.raftAddress(), leader.raftAddress(), before.term())) {
                    String what = attack.getDescriptorForType().getName() + " to " + target;
                    assertThrows(Exception.class, () -> send(noSecret, target, attack), what + " without a secret");
                    assertInstanceOf(
                            HandshakeRefusedException.class,
                            assertThrows(Exception.class, () -> send(wrongSecret, target, attack)),
                            what + " with another secret");
                    if (attack.getDescriptorForType().findFieldByName("server_id") != null) {
                        assertThrows(
                                Exception.class,
                                () -> send(otherName, target, attack),
                                what + " from " + nodes.get(1) + " in the name of " + ROGUE);
                    }
                }
            }
        } finally {
            noSecret.shutdown();
            wrongSecret.shutdown();
            otherName.shutdown();
        }

        // Bounded look: long enough for a forged term or configuration to have shown.
        Await.holdsFor(
                Duration.ofSeconds(3),
                "leader, term, configuration and data unchanged on every node",
                () -> before.equals(State.of(nodes)));
        ConfigApi.assertReadable(leader, Map.of("rogue.target", "v1"));
        assertEquals(200, ConfigApi.publish(leader, "rogue.after", "v2").status(), "the group still takes writes");
    }

    /** What a rogue node would send {@code target} to take the group over or to read it. */
    private static List<Message> attacks(String target, String leader, long term) {
        long higher = term + 100;
        List<Message> attacks = new ArrayList<>();
        attacks.add(RpcRequests.AppendEntriesRequest.newBuilder()
                .setGroupId(GROUP)
                .setServerId(ROGUE)
                .setPeerId(target)
                .setTerm(higher)
                .setPrevLogTerm(0)
                .setPrevLogIndex(0)
                .setCommittedIndex(0)
                .build());
        attacks.add(RpcRequests.RequestVoteRequest.newBuilder()
                .setGroupId(GROUP)
                .setServerId(ROGUE)
                .setPeerId(target)
                .setTerm(higher)
                .setLastLogTerm(higher)
                .setLastLogIndex(Long.MAX_VALUE / 2)
                .setPreVote(false)
                .build());
        attacks.add(RpcRequests.InstallSnapshotRequest.newBuilder()
                .setGroupId(GROUP)
                .setServerId(ROGUE)
                .setPeerId(target)
                .setTerm(higher)
                .setMeta(SnapshotMeta.newBuilder()
                        .setLastIncludedIndex(Long.MAX_VALUE / 2)
                        .setLastIncludedTerm(higher)
                        .addPeers(ROGUE)
                        .build())
                .setUri("remote://" + ROGUE + "/1")
                .build());
        attacks.add(CliRequests.AddPeerRequest.newBuilder()
                .setGroupId(GROUP)
                .setLeaderId(leader)
                .setPeerId(ROGUE)
                .build());
        attacks.add(CliRequests.ResetPeerRequest.newBuilder()
                .setGroupId(GROUP)
                .setPeerId(target)
                .addNewPeers(ROGUE)
                .build());
        attacks.add(CliRequests.GetPeersRequest.newBuilder()
                .setGroupId(GROUP)
                .setLeaderId(leader)
                .build());
        return attacks;
    }

    private static Object send(RpcClient client, ServerProcess target, Message request) throws Exception {
        String[] hostPort = target.raftAddress().split(":");
        return client.invokeSync(new Endpoint(hostPort[0], Integer.parseInt(hostPort[1])), request, TIMEOUT_MS);
    }

    /** What the attacks must leave as it was, seen by every node. */
    private record State(List<String> leaders, List<Long> terms, List<TreeSet<String>> members, List<Long> revisions) {
        static State of(List<ServerProcess> nodes) {
            List<String> leaders = new ArrayList<>();
            List<Long> terms = new ArrayList<>();
            List<TreeSet<String>> members = new ArrayList<>();
            List<Long> revisions = new ArrayList<>();
            for (ServerProcess node : nodes) {
                JsonNode view;
                try {
                    view = node.view();
                } catch (Exception e) {
                    throw new AssertionError(node + " did not answer", e);
                }
                leaders.add(view.path("leader").asText());
                terms.add(view.path("term").asLong());
                TreeSet<String> addresses = new TreeSet<>();
                view.path("members")
                        .forEach(m -> addresses.add(m.path("address").asText()));
                members.add(addresses);
                revisions.add(view.path("revision").asLong());
            }
            return new State(leaders, terms, members, revisions);
        }

        long term() {
            return terms.get(0);
        }
    }
}
