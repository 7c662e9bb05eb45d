package io.lodestar.api.views;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.json.Json;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks every member one {@link NodeViews} question and gathers the answers: this node answers
 * itself, the others over the store's {@link io.lodestar.kv.cluster.PeerChannel}, where every
 * frame carries an HMAC under the cluster secret (so only members ask, and only members answer;
 * no header or source address is trusted). A member that does not answer within the deadline is
 * listed as unreachable, with the reason, and the others' answers still count; so is one the
 * group's status checks already report unreachable, without waiting for it.
 *
 * <p>The question was authorized on the node the client asked; a member answers a member's question
 * without checking a user, as it answers Distro's. Questions and answers are JSON read into Jackson's
 * tree, never into a class the message names.
 *
 * <p>The future completes on the store's completion thread (or the caller's, with no peer) within
 * the deadline, and never fails.
 */
public final class ClusterGather {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterGather.class);
    static final String TOPIC = "lodestar.views";
    /** How long a member has to answer. */
    public static final long DEFAULT_DEADLINE_MS = 2_000;

    private final KvStore store;
    /** This node's answer to a question ({@link NodeViews#answer}). */
    private final Function<JsonNode, JsonNode> local;

    private final long deadlineMs;
    private final String selfHttpAddress;

    /** One member's answer, or why there is none ({@code answer} null, {@code error} set). */
    public record NodeAnswer(String raftAddress, String httpAddress, boolean self, JsonNode answer, String error) {
        public boolean reachable() {
            return answer != null;
        }

        /** How an answer names the member: its HTTP address, its Raft address until it has published one. */
        public String node() {
            return httpAddress != null ? httpAddress : raftAddress;
        }
    }

    /** {@code selfHttpAddress}: this node's HTTP {@code host:port}, how its rows name it. */
    public ClusterGather(KvStore store, Function<JsonNode, JsonNode> local, long deadlineMs, String selfHttpAddress) {
        this.selfHttpAddress = selfHttpAddress;
        this.store = store;
        this.local = local;
        this.deadlineMs = deadlineMs;
    }

    /** Starts answering the other members' questions. */
    public ClusterGather serve() {
        store.peers().handle(TOPIC, (from, payload) -> {
            try {
                JsonNode question = Json.MAPPER.readTree(payload);
                return CompletableFuture.completedFuture(Json.MAPPER.writeValueAsBytes(local.apply(question)));
            } catch (IOException | RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        return this;
    }

    /**
     * Each member's own account of itself, by Raft address: {@code status} {@code UP} (answered,
     * ready), {@code DOWN} (answered, not ready: {@code readiness} says why) or {@code UNREACHABLE}
     * (no answer within the deadline: {@code error} says why); and from those that answered their
     * {@code role}, {@code leader}, {@code term}, {@code commitIndex}, {@code appliedIndex}, {@code
     * revision}, {@code ready}, {@code readiness} and {@code distro} ({@code loaded}, {@code
     * lastVerify} per peer).
     */
    public CompletableFuture<java.util.Map<String, java.util.Map<String, Object>>> memberStatus() {
        return gather(NodeViews.status()).thenApply(nodes -> {
            java.util.Map<String, java.util.Map<String, Object>> out = new java.util.LinkedHashMap<>();
            for (NodeAnswer n : nodes) {
                java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                if (n.reachable()) {
                    @SuppressWarnings("unchecked")
                    java.util.Map<String, Object> own =
                            Json.MAPPER.convertValue(n.answer(), java.util.LinkedHashMap.class);
                    m.put("status", Boolean.TRUE.equals(own.get("ready")) ? "UP" : "DOWN");
                    m.put("reachable", true);
                    own.remove("raftAddress");
                    m.putAll(own);
                } else {
                    m.put("status", "UNREACHABLE");
                    m.put("reachable", false);
                    m.put("error", n.error());
                }
                out.put(n.raftAddress(), m);
            }
            return out;
        });
    }

    /** Every member's answer to {@code question}, this node's first, then the others' in the group's order. */
    public CompletableFuture<List<NodeAnswer>> gather(JsonNode question) {
        ClusterView view = store.cluster();
        byte[] payload;
        try {
            payload = Json.MAPPER.writeValueAsBytes(question);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        List<CompletableFuture<NodeAnswer>> answers = new ArrayList<>();
        // this node by the address it serves on: the group learns it only once it is published
        answers.add(CompletableFuture.completedFuture(
                new NodeAnswer(view.self(), selfHttpAddress, true, local.apply(question), null)));
        for (ClusterView.Member m : view.members()) {
            if (m.address().equals(view.self())) {
                continue;
            }
            answers.add(ask(m, payload));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(v -> answers.stream().map(CompletableFuture::join).toList());
    }

    private CompletableFuture<NodeAnswer> ask(ClusterView.Member m, byte[] payload) {
        if (m.state() == MemberState.UNREACHABLE) {
            // the group's own status checks (every second) already miss it: waiting out the
            // deadline would only slow every view while a member is down or cut off
            return CompletableFuture.completedFuture(new NodeAnswer(
                    m.address(), m.httpAddress(), false, null, "the members' status checks do not reach it"));
        }
        CompletableFuture<byte[]> sent;
        try {
            sent = store.peers().send(m.address(), TOPIC, payload, deadlineMs);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.orTimeout(deadlineMs + 500, TimeUnit.MILLISECONDS).handle((bytes, error) -> {
            if (error == null) {
                try {
                    return new NodeAnswer(m.address(), m.httpAddress(), false, Json.MAPPER.readTree(bytes), null);
                } catch (IOException | RuntimeException e) {
                    error = e;
                }
            }
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause()
                    : error;
            LOG.debug("member {} did not answer a view: {}", m.address(), cause.toString());
            String why = cause instanceof java.util.concurrent.TimeoutException
                    ? "no answer within " + deadlineMs + " ms"
                    : String.valueOf(cause.getMessage());
            return new NodeAnswer(m.address(), m.httpAddress(), false, null, why);
        });
    }
}
