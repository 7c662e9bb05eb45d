package io.lodestar.api.v1.naming;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.lodestar.api.answer.NamingJson;
import io.lodestar.api.http.Params;
import io.lodestar.api.request.NamingFields;
import io.lodestar.api.udp.PushStats;
import io.lodestar.api.udp.UdpPushSettings;
import io.lodestar.api.udp.UdpPusher;
import io.lodestar.error.InvalidRequestException;
import io.lodestar.kv.KvStore;
import io.lodestar.kv.cluster.ClusterView;
import io.lodestar.kv.cluster.MemberState;
import io.lodestar.kv.cluster.Readiness;
import io.lodestar.naming.NamingCounts;
import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.service.NamingService;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /nacos/v1/ns/operator}: {@code metrics} (the 1.x client's server-health check reads its
 * {@code status}), {@code servers} (the Raft group's members as Nacos members) and {@code
 * switches} (read-only: Lodestar's settings are fixed at start-up, so a PUT is refused rather
 * than accepted and ignored).
 */
public final class OperatorRoutes {
    private static final String PATH = InstanceRoutes.BASE + "/operator";
    private static final String SWITCH_DOMAIN_NAME = "00-00---000-NACOS_SWITCH_DOMAIN-000---00-00";

    private OperatorRoutes() {}

    /** {@code udp} may be null (push off). */
    public static void install(
            Javalin app, KvStore store, NamingService naming, UdpPusher udp, Supplier<Readiness> readiness) {
        app.get(PATH + "/metrics", ctx -> ctx.json(metrics(readiness, naming, udp)));
        app.get(PATH + "/servers", ctx -> servers(ctx, store));
        app.get(PATH + "/switches", ctx -> ctx.json(switches(udp)));
        app.put(PATH + "/switches", ctx -> {
            Params q = Params.of(ctx);
            String entry = NamingFields.required(q, "entry");
            throw new InvalidRequestException(
                    "entry",
                    "switch '" + NamingFields.shorten(entry)
                            + "' cannot be changed: Lodestar's switches are read-only (GET " + PATH
                            + "/switches shows them)");
        });
    }

    private static Map<String, Object> metrics(Supplier<Readiness> readiness, NamingService naming, UdpPusher udp) {
        NamingCounts counts = naming.counts();
        Map<String, Object> m = new LinkedHashMap<>();
        // UP while the node can serve writes of persistent data too; the 1.x client reads only this
        m.put("status", readiness.get().ready() ? "UP" : "DOWN");
        m.put("serviceCount", counts.services());
        m.put("instanceCount", counts.instances());
        m.put("ephemeralInstanceCount", counts.ephemeralInstances());
        m.put("persistentInstanceCount", counts.persistentInstances());
        PushStats push = udp == null ? new PushStats(0, 0, 0, 0, 0, 0) : udp.stats();
        m.put("subscribeCount", push.subscribers());
        m.put("udpPushCount", push.pushes());
        m.put("udpPushAckCount", push.acks());
        m.put("udpPushResendCount", push.resends());
        m.put("udpPushFailCount", push.failures());
        m.put("udpPushPendingCount", push.pending());
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        m.put("load", os.getSystemLoadAverage());
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            m.put("cpu", sun.getProcessCpuLoad());
        }
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        m.put("mem", heap.getMax() > 0 ? (double) heap.getUsed() / heap.getMax() : 0.0);
        return m;
    }

    /**
     * Nacos members: {@code ip} and {@code port} of each node's HTTP address (the Raft address's
     * host, port 0, until the node has published its HTTP address), {@code state} UP for a member
     * in the group's view and DOWN for an unreachable one; {@code healthy=true} lists only UP ones.
     */
    private static void servers(Context ctx, KvStore store) {
        Params q = Params.of(ctx);
        boolean healthyOnly = NamingFields.bool(q, "healthy", false);
        ClusterView view = store.cluster();
        List<Map<String, Object>> servers = new ArrayList<>();
        for (ClusterView.Member m : view.members()) {
            String state = m.state() == MemberState.UNREACHABLE ? "DOWN" : "UP";
            if (healthyOnly && !state.equals("UP")) {
                continue;
            }
            String address = m.httpAddress() != null ? m.httpAddress() : m.address();
            int colon = address.lastIndexOf(':');
            String ip = colon > 0 ? address.substring(0, colon) : address;
            int port = m.httpAddress() != null && colon > 0 ? Integer.parseInt(address.substring(colon + 1)) : 0;
            Map<String, Object> extend = new LinkedHashMap<>();
            extend.put("raftAddress", m.address());
            extend.put("raftState", m.state().name());
            extend.put("self", m.address().equals(view.self()));
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("ip", ip);
            s.put("port", port);
            s.put("address", ip + ":" + port);
            s.put("state", state);
            s.put("extendInfo", extend);
            s.put("failAccessCnt", 0);
            servers.add(s);
        }
        ctx.json(Map.of("servers", servers));
    }

    /** The switches Lodestar honours, under Nacos's names where Nacos has one. */
    private static Map<String, Object> switches(UdpPusher udp) {
        UdpPushSettings push = udp == null ? UdpPushSettings.DEFAULT : udp.settings();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("name", SWITCH_DOMAIN_NAME);
        s.put("clientBeatInterval", HeartbeatSettings.DEFAULT_INTERVAL_MS);
        s.put("defaultCacheMillis", NamingJson.CACHE_MILLIS);
        s.put("defaultPushCacheMillis", NamingJson.CACHE_MILLIS);
        s.put("pushEnabled", udp != null);
        s.put("lightBeatEnabled", true);
        s.put("defaultInstanceEphemeral", true);
        s.put("udpPushResends", push.resends());
        s.put("udpPushResendIntervalMillis", push.resendInterval().toMillis());
        s.put("udpPushSubscriberTtlMillis", push.subscriberTtl().toMillis());
        s.put("udpPushMaxSubscribers", push.maxSubscribers());
        return s;
    }
}
