package io.lodestar.api.balance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.json.Json;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members' connection counts, asked for on demand over the store's {@link
 * io.lodestar.kv.cluster.PeerChannel} (topic {@value #TOPIC}), where every frame carries an HMAC
 * under the cluster secret: only members ask, and only members' answers count. Asking rather than
 * each node publishing on a timer keeps every round's numbers as fresh as one round trip, and
 * costs nothing while no node balances.
 *
 * <p>A report is {@code {"connections": N, "ready": bool, "redirectable": bool}}, read as a JSON
 * tree. A member is left out of a gather when the group's status checks do not reach it, when it
 * has published no HTTP address yet (a client could not be sent to it), when it does not answer
 * within the deadline (a node with gRPC off serves no such topic), or when its gRPC port is not
 * its HTTP port + 1000 ({@code redirectable} false): a client sent to a member derives the gRPC
 * port from the HTTP one by that offset.
 */
public final class LoadReports {
    private static final Logger LOG = LoggerFactory.getLogger(LoadReports.class);
    static final String TOPIC = "lodestar.balance";

    /** What this node reports of itself. */
    public record Own(int connections, boolean ready, boolean redirectable) {}

    private final KvStore store;
    private final Supplier<Own> own;
    private final String selfHttpAddress;
    private final long deadlineMs;

    /** {@code selfHttpAddress}: this node's HTTP {@code host:port}, where clients are sent to reach it. */
    public LoadReports(KvStore store, Supplier<Own> own, String selfHttpAddress, long deadlineMs) {
        this.store = store;
        this.own = own;
        this.selfHttpAddress = selfHttpAddress;
        this.deadlineMs = deadlineMs;
    }

    /** Starts answering the other members. */
    public LoadReports serve() {
        store.peers().handle(TOPIC, (from, payload) -> {
            try {
                return CompletableFuture.completedFuture(Json.MAPPER.writeValueAsBytes(encode(own.get())));
            } catch (IOException | RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        return this;
    }

    /**
     * The loads of this node and of every member that answered within the deadline, this node's
     * first. The future completes on the store's completion thread, or the caller's with no peer;
     * it never fails.
     */
    public CompletableFuture<List<MemberLoad>> gather() {
        ClusterView view = store.cluster();
        Own self = own.get();
        List<CompletableFuture<MemberLoad>> answers = new ArrayList<>();
        answers.add(CompletableFuture.completedFuture(
                self.redirectable()
                        ? new MemberLoad(view.self(), selfHttpAddress, self.connections(), self.ready())
                        : null));
        for (ClusterView.Member m : view.members()) {
            if (m.address().equals(view.self()) || m.state() == MemberState.UNREACHABLE || m.httpAddress() == null) {
                continue;
            }
            answers.add(ask(m));
        }
        return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenApply(v -> answers.stream()
                        .map(CompletableFuture::join)
                        .filter(Objects::nonNull)
                        .toList());
    }

    private CompletableFuture<MemberLoad> ask(ClusterView.Member m) {
        CompletableFuture<byte[]> sent;
        try {
            sent = store.peers().send(m.address(), TOPIC, new byte[] {'{', '}'}, deadlineMs);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.orTimeout(deadlineMs + 500, TimeUnit.MILLISECONDS).handle((bytes, error) -> {
            if (error != null) {
                LOG.debug("member {} reported no load: {}", m.address(), error.toString());
                return null;
            }
            try {
                return decode(m, Json.MAPPER.readTree(bytes));
            } catch (IOException | RuntimeException e) {
                LOG.debug("member {} reported an unreadable load: {}", m.address(), e.toString());
                return null;
            }
        });
    }

    static ObjectNode encode(Own own) {
        return Json.MAPPER
                .createObjectNode()
                .put("connections", own.connections())
                .put("ready", own.ready())
                .put("redirectable", own.redirectable());
    }

    /** The member's load, or null when it cannot take clients sent to it. */
    static MemberLoad decode(ClusterView.Member m, JsonNode report) {
        JsonNode connections = report.get("connections");
        if (connections == null || !connections.canConvertToInt() || connections.asInt() < 0) {
            throw new IllegalArgumentException("no connection count in " + report);
        }
        if (!report.path("redirectable").asBoolean(false)) {
            return null;
        }
        return new MemberLoad(
                m.address(),
                m.httpAddress(),
                connections.asInt(),
                report.path("ready").asBoolean(false));
    }
}
