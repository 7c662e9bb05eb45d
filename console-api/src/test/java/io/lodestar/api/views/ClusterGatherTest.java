package io.lodestar.api.views;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.lodestar.api.json.Json;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.cluster.PeerChannel;
import io.lodestar.kv.cluster.PeerMessageHandler;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Gathering one question from every member: this node by its own HTTP address (even before the
 * group has learnt it), a member that answers with its rows, one that never answers as unreachable
 * once the deadline passes, and one the group already reports unreachable without waiting.
 */
class ClusterGatherTest {
    private static final long DEADLINE_MS = 300;

    @Test
    void eachMemberIsListedWithItsAnswerOrWhyThereIsNone() throws Exception {
        ClusterView view = new ClusterView(
                "self:7848",
                "self:7848",
                3,
                10,
                10,
                List.of(
                        new ClusterView.Member("self:7848", null, MemberState.LEADER), // not published yet
                        new ClusterView.Member("answers:7848", "answers:8848", MemberState.FOLLOWER),
                        new ClusterView.Member("silent:7848", "silent:8848", MemberState.FOLLOWER),
                        new ClusterView.Member("down:7848", "down:8848", MemberState.UNREACHABLE)));
        List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        PeerChannel channel = new PeerChannel() {
            @Override
            public CompletableFuture<byte[]> send(String peer, String topic, byte[] payload, long timeoutMillis) {
                asked.add(peer);
                if (peer.equals("answers:7848")) {
                    return CompletableFuture.completedFuture("[{\"row\":\"theirs\"}]".getBytes());
                }
                return new CompletableFuture<>(); // never answers, not even by the channel's own timeout
            }

            @Override
            public void handle(String topic, PeerMessageHandler handler) {}
        };
        KvStore store = (KvStore) Proxy.newProxyInstance(
                KvStore.class.getClassLoader(),
                new Class<?>[] {KvStore.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "cluster" -> view;
                    case "peers" -> channel;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        ClusterGather gather = new ClusterGather(
                store,
                q -> JsonNodeFactory.instance
                        .arrayNode()
                        .add(JsonNodeFactory.instance.objectNode().put("row", "mine")),
                DEADLINE_MS,
                "self:8848");

        long start = System.nanoTime();
        List<ClusterGather.NodeAnswer> answers =
                gather.gather(NodeViews.status()).get(5, TimeUnit.SECONDS);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        Map<String, ClusterGather.NodeAnswer> byNode = new java.util.HashMap<>();
        answers.forEach(a -> byNode.put(a.raftAddress(), a));
        assertEquals(4, answers.size(), answers.toString());
        ClusterGather.NodeAnswer self = byNode.get("self:7848");
        assertEquals("self:8848", self.node(), "this node by its own HTTP address");
        assertEquals("mine", self.answer().get(0).path("row").asText());
        assertEquals(
                "theirs", byNode.get("answers:7848").answer().get(0).path("row").asText());
        ClusterGather.NodeAnswer silent = byNode.get("silent:7848");
        assertFalse(silent.reachable());
        assertNull(silent.answer());
        assertTrue(silent.error().contains("no answer within"), silent.error());
        assertFalse(byNode.get("down:7848").reachable());
        assertFalse(asked.contains("down:7848"), "a member the group reports unreachable is not waited for");
        assertTrue(tookMs < 5_000, "bounded by the deadline: " + tookMs + " ms");
        JsonNode nodes = Json.MAPPER.valueToTree(ViewRoutes.nodes(answers));
        assertEquals(4, nodes.size(), nodes.toString());
    }
}
