package io.lodestar.api.views;

import static io.javalin.http.HandlerType.GET;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.Names;
import io.lodestar.api.request.ViewOp;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.InstanceAddress;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The operator's views of who uses what, each answered for the whole cluster ({@link ClusterGather}):
 * who listens to a config, which configs the clients at an address listen to, who subscribes to a
 * service, and what keeps each instance of a service alive. Every answer lists the members asked
 * ({@code nodes}), the unreachable ones with why, so a partial answer says it is partial.
 */
public final class ViewRoutes {
    public static final String CONFIG_LISTENERS = "/nacos/v1/cs/configs/listener";
    public static final String LISTENERS_AT = "/nacos/v1/cs/listener";
    public static final String SUBSCRIBERS = "/nacos/v1/ns/service/subscribers";
    public static final String INSTANCES = "/nacos/v1/ns/catalog/instances";

    private final ClusterGather gather;
    private final NamingService naming;

    private ViewRoutes(ClusterGather gather, NamingService naming) {
        this.gather = gather;
        this.naming = naming;
    }

    public static void install(Routes routes, ClusterGather gather, NamingService naming) {
        ViewRoutes views = new ViewRoutes(gather, naming);
        routes.add(GET, CONFIG_LISTENERS, ViewRequests::configListeners, views::configListeners)
                .add(GET, LISTENERS_AT, ViewRequests::listenersAt, views::listenersAt)
                .add(GET, SUBSCRIBERS, ViewRequests::subscribers, views::subscribers)
                .add(GET, INSTANCES, ViewRequests::instances, views::instances);
    }

    /**
     * Nacos's {@code GroupkeyStatus} ({@code collectStatus}, {@code lisentersGroupkeyStatus}: client
     * IP to MD5, as Nacos spells it), with every listener as a row and the members asked.
     */
    private void configListeners(ViewOp.ConfigListeners op, Answer answer) {
        answerWhenDone(
                answer, gather.gather(NodeViews.configListeners(op.key())).thenApply(nodes -> {
                    List<Map<String, Object>> rows = rows(nodes);
                    Map<String, Object> byIp = new LinkedHashMap<>();
                    rows.forEach(r -> byIp.putIfAbsent(String.valueOf(r.get("ip")), r.get("md5")));
                    return groupkeyStatus(byIp, rows, nodes);
                }));
    }

    /** As {@link #configListeners}, keyed by group key ({@code dataId+group[+tenant]}), of one namespace. */
    private void listenersAt(ViewOp.ListenersAt op, Answer answer) {
        String tenant = Names.tenant(op.namespace());
        answerWhenDone(answer, gather.gather(NodeViews.listenersAt(op.ip())).thenApply(nodes -> {
            List<Map<String, Object>> rows = new ArrayList<>(rows(nodes));
            rows.removeIf(r -> !tenant.equals(r.get("tenant")));
            Map<String, Object> byKey = new LinkedHashMap<>();
            rows.forEach(r -> byKey.putIfAbsent(groupKey(r), r.get("md5")));
            return groupkeyStatus(byKey, rows, nodes);
        }));
    }

    private static String groupKey(Map<String, Object> row) {
        String tenant = String.valueOf(row.get("tenant"));
        return row.get("dataId") + "+" + row.get("group") + (tenant.isEmpty() ? "" : "+" + tenant);
    }

    private static Map<String, Object> groupkeyStatus(
            Map<String, Object> status, List<Map<String, Object>> rows, List<ClusterGather.NodeAnswer> nodes) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("collectStatus", 200);
        body.put("lisentersGroupkeyStatus", status);
        body.put("listeners", rows);
        body.put("nodes", nodes(nodes));
        return body;
    }

    /** Nacos's {@code {"subscribers": [...], "count": N}}, sorted by address, with the members asked. */
    private void subscribers(ViewOp.Subscribers op, Answer answer) {
        answerWhenDone(
                answer, gather.gather(NodeViews.subscribers(op.service())).thenApply(nodes -> {
                    List<Map<String, Object>> rows = new ArrayList<>(rows(nodes));
                    rows.sort(Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("addrStr")))
                            .thenComparing(r -> String.valueOf(r.get("node"))));
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("subscribers", page(rows, op.pageNo(), op.pageSize()));
                    body.put("count", rows.size());
                    body.put("nodes", nodes(nodes));
                    return body;
                }));
    }

    /**
     * Nacos's catalog list ({@code {"list": [...], "count": N}}) of every instance, enabled or not,
     * each with {@code heldBy}: {@code grpc} with the member holding it and its connections there,
     * {@code http-beat} for one its client's heartbeats keep, {@code persistent} for one the
     * server's probes check.
     */
    private void instances(ViewOp.Instances op, Answer answer) {
        ServiceKey service = op.service();
        List<Instance> all = new ArrayList<>(naming.allInstances(service));
        if (op.cluster() != null) {
            all.removeIf(i -> !i.cluster().equals(op.cluster()));
        }
        all.sort(Comparator.comparing(Instance::cluster)
                .thenComparing(Instance::ip)
                .thenComparingInt(Instance::port));
        Map<InstanceAddress, String> holders = naming.holders(service);
        answerWhenDone(answer, gather.gather(NodeViews.holders(service)).thenApply(nodes -> {
            Map<String, String> httpOf = new HashMap<>();
            nodes.forEach(n -> httpOf.put(n.raftAddress(), n.httpAddress()));
            Map<String, List<Map<String, Object>>> connections = new HashMap<>();
            for (Map<String, Object> r : rows(nodes)) {
                String key = r.get("node") + "|" + r.get("cluster") + "|" + r.get("ip") + "|" + r.get("port");
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("connectionId", r.get("connectionId"));
                c.put("clientAddress", r.get("clientAddress"));
                c.put("agent", r.get("agent"));
                connections.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
            }
            List<Map<String, Object>> list = new ArrayList<>();
            for (Instance i : page(all, op.pageNo(), op.pageSize())) {
                Map<String, Object> h = NamingJson.host(service, i);
                h.put("heldBy", heldBy(i, holders, httpOf, connections));
                list.add(h);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("list", list);
            body.put("count", all.size());
            body.put("nodes", nodes(nodes));
            return body;
        }));
    }

    private static Map<String, Object> heldBy(
            Instance i,
            Map<InstanceAddress, String> holders,
            Map<String, String> httpOf,
            Map<String, List<Map<String, Object>>> connections) {
        Map<String, Object> h = new LinkedHashMap<>();
        if (!i.ephemeral()) {
            h.put("kind", "persistent");
            return h;
        }
        String holder = holders.get(i.address());
        if (holder == null) {
            h.put("kind", "http-beat");
            return h;
        }
        String node = httpOf.getOrDefault(holder, null);
        String named = node != null ? node : holder;
        h.put("kind", "grpc");
        h.put("node", named);
        h.put("raftAddress", holder);
        h.put(
                "connections",
                connections.getOrDefault(named + "|" + i.cluster() + "|" + i.ip() + "|" + i.port(), List.of()));
        return h;
    }

    /** Every answering member's rows, each with {@code node}: the member that holds it. */
    static List<Map<String, Object>> rows(List<ClusterGather.NodeAnswer> nodes) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ClusterGather.NodeAnswer n : nodes) {
            if (n.answer() == null) {
                continue;
            }
            for (JsonNode row : n.answer()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> m = io.lodestar.api.json.Json.MAPPER.convertValue(row, LinkedHashMap.class);
                m.put("node", n.node());
                rows.add(m);
            }
        }
        return rows;
    }

    /** The members asked: {@code node}, {@code raftAddress}, {@code self}, {@code reachable}, and {@code error} when not. */
    static List<Map<String, Object>> nodes(List<ClusterGather.NodeAnswer> nodes) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ClusterGather.NodeAnswer n : nodes) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", n.node());
            m.put("raftAddress", n.raftAddress());
            m.put("self", n.self());
            m.put("reachable", n.reachable());
            if (!n.reachable()) {
                m.put("error", n.error());
            }
            out.add(m);
        }
        return out;
    }

    static <T> List<T> page(List<T> all, int pageNo, int pageSize) {
        long from = (long) (pageNo - 1) * pageSize;
        if (from >= all.size()) {
            return List.of();
        }
        return all.subList((int) from, (int) Math.min(all.size(), from + pageSize));
    }

    private static void answerWhenDone(Answer answer, CompletableFuture<Map<String, Object>> body) {
        answer.answerWhenDone(body.thenApply(b -> Answer.Body.json(200, b)));
    }
}
