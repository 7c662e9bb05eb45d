package io.lodestar.api.cluster;

import io.javalin.Javalin;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.LogStats;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.LeaderContact;
import io.lodestar.kv.cluster.Readiness;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** Liveness, readiness and the group's state. */
public final class HealthRoutes {
    private HealthRoutes() {}

    /**
     * {@code memberStatus}: each member's own account of itself by Raft address, gathered within a
     * deadline ({@code io.lodestar.api.views.ClusterGather#memberStatus}); merged into each member
     * of {@code /lodestar/v1/cluster}.
     */
    public static void install(
            Javalin app,
            KvStore store,
            Supplier<Readiness> readiness,
            Supplier<CompletableFuture<Map<String, Map<String, Object>>>> memberStatus) {
        app.get("/nacos/v1/console/health/liveness", ctx -> ctx.result("OK"));
        app.get("/nacos/v1/console/health/readiness", ctx -> {
            Readiness r = readiness.get();
            ctx.status(r.ready() ? 200 : 503).result(r.ready() ? "OK" : r.reason());
        });
        app.get(
                "/lodestar/v1/cluster",
                ctx -> ctx.future(() -> memberStatus.get().thenAccept(status -> {
                    ClusterView v = store.cluster();
                    Readiness r = readiness.get();
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("clusterId", store.clusterId());
                    body.put("self", v.self());
                    body.put("leader", v.leader());
                    body.put("term", v.term());
                    body.put("appliedIndex", v.appliedIndex());
                    body.put("commitIndex", v.commitIndex());
                    body.put("revision", store.revision());
                    body.put("ready", r.ready());
                    body.put("readiness", r.reason());
                    LeaderContact contact = store.leaderContact();
                    body.put("leaderContactAgeMillis", contact.ageMillis(System.currentTimeMillis()));
                    body.put(
                            "noLeaderSince",
                            contact.noLeaderSinceMillis() == 0
                                    ? null
                                    : Instant.ofEpochMilli(contact.noLeaderSinceMillis())
                                            .toString());
                    List<Map<String, Object>> members = v.members().stream()
                            .map(m -> {
                                Map<String, Object> mm = new LinkedHashMap<>();
                                mm.put("address", m.address());
                                mm.put("httpAddress", m.httpAddress());
                                mm.put("state", m.state().name());
                                Map<String, Object> own = status.get(m.address());
                                if (own != null) {
                                    mm.putAll(own);
                                }
                                return mm;
                            })
                            .toList();
                    body.put("members", members);
                    LogStats log = store.logStats();
                    Map<String, Object> lm = new LinkedHashMap<>();
                    lm.put("bytes", log.logBytes());
                    lm.put("entriesSinceSnapshot", log.entriesSinceSnapshot());
                    lm.put("bytesSinceSnapshot", log.bytesSinceSnapshot());
                    lm.put("lastSnapshotIndex", log.lastSnapshotIndex());
                    lm.put("lastSnapshotAt", log.lastSnapshotAtMillis());
                    lm.put("lastSnapshotMillis", log.lastSnapshotMillis());
                    lm.put("snapshots", log.snapshots());
                    lm.put("diskFreeBytes", log.diskFreeBytes());
                    body.put("log", lm);
                    ctx.json(body);
                })));
    }
}
