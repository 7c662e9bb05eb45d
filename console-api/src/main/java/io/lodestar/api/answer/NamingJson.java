package io.lodestar.api.answer;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.lodestar.api.json.Json;
import io.lodestar.api.request.NamingFields;
import io.lodestar.naming.ServicePage;
import io.lodestar.naming.model.CheckerType;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.HeartbeatSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.query.ServiceView;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The naming API's JSON bodies, field for field as Nacos writes them (docs/http-api.md): the 1.x
 * client keys its cache and event routing by the list's {@code name} (grouped) and {@code clusters}
 * (the request's string, echoed), and reads each host's fields by these names.
 */
public final class NamingJson {
    /**
     * How long a client may use a list before polling again. Nacos answers 10 s to clients it can
     * push to (and 3 s to others); one value keeps the 1.x client's poll, which also renews its UDP
     * subscription, at every 10 s.
     */
    public static final long CACHE_MILLIS = 10_000;

    private NamingJson() {}

    /** The instance-list body; {@code clusters} is echoed as the client sent it ({@code ""} for none). */
    public static Map<String, Object> list(ServiceView view, String clusters) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", view.name());
        body.put("groupName", view.service().group());
        body.put("clusters", clusters == null ? "" : clusters);
        body.put("cacheMillis", CACHE_MILLIS);
        List<Map<String, Object>> hosts = new ArrayList<>(view.hosts().size());
        for (Instance i : view.hosts()) {
            hosts.add(host(view.service(), i));
        }
        body.put("hosts", hosts);
        body.put("lastRefTime", view.lastRefTime());
        body.put("checksum", view.checksum());
        body.put("allIPs", false);
        body.put("reachProtectionThreshold", view.reachProtectionThreshold());
        body.put("valid", true);
        return body;
    }

    /**
     * Writes a page of service names as {@code /service/list} answers it, {@code
     * {"count":N,"doms":[...]}}, name by name as it goes out: the bytes serializing the same map
     * would give, without the page also held as one JSON string (a page may be every service of a
     * group). {@code out} stays open.
     */
    public static void writeServiceList(ServicePage page, OutputStream out) throws IOException {
        try (JsonGenerator json = Json.MAPPER.createGenerator(out)) {
            json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            json.writeStartObject();
            json.writeNumberField("count", page.count());
            json.writeArrayFieldStart("doms");
            for (String name : page.names()) {
                json.writeString(name);
            }
            json.writeEndArray();
            json.writeEndObject();
        }
    }

    /** {@link #list} as a JSON string: what a UDP push carries. */
    public static String listJson(ServiceView view, String clusters) {
        try {
            return NamingFields.JSON.writeValueAsString(list(view, clusters));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an instance list", e);
        }
    }

    public static Map<String, Object> host(ServiceKey service, Instance i) {
        HeartbeatSettings beat = i.heartbeat();
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("instanceId", i.idIn(service));
        h.put("ip", i.ip());
        h.put("port", i.port());
        h.put("weight", i.weight());
        h.put("healthy", i.healthy());
        h.put("enabled", i.enabled());
        h.put("ephemeral", i.ephemeral());
        h.put("clusterName", i.cluster());
        h.put("serviceName", service.groupedName());
        h.put("metadata", i.metadata());
        h.put("instanceHeartBeatInterval", beat.intervalMs());
        h.put("instanceHeartBeatTimeOut", beat.timeoutMs());
        h.put("ipDeleteTimeout", beat.deleteTimeoutMs());
        h.put("instanceIdGenerator", "simple");
        return h;
    }

    /**
     * {@code GET /instance}: one instance (Nacos's fields, plus {@code enabled} and {@code
     * ephemeral}); for a persistent one also whether the leader probes it ({@code probed}) and,
     * when not, why ({@code notProbedReason}). {@code notProbed} is null for an ephemeral instance.
     */
    public static Map<String, Object> detail(ServiceKey service, Instance i, Optional<String> notProbed) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("service", service.groupedName());
        d.put("ip", i.ip());
        d.put("port", i.port());
        d.put("clusterName", i.cluster());
        d.put("weight", i.weight());
        d.put("healthy", i.healthy());
        d.put("instanceId", i.idIn(service));
        d.put("metadata", i.metadata());
        d.put("enabled", i.enabled());
        d.put("ephemeral", i.ephemeral());
        if (notProbed != null) {
            d.put("probed", notProbed.isEmpty());
            notProbed.ifPresent(reason -> d.put("notProbedReason", reason));
        }
        return d;
    }

    /**
     * {@code GET /service}: Nacos 1.4's service detail ({@code name} without the group, which the
     * 1.x client reads into its {@code Service}), with instance counts added, and per cluster the
     * persistent instances its checker would probe but may not ({@code notProbed}: ip, port and
     * reason), as {@code notProbed} tells of each instance.
     */
    public static Map<String, Object> service(
            Service s,
            List<Instance> instances,
            BiFunction<Instance, HealthCheckSettings, Optional<String>> notProbed) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("namespaceId", s.key().namespace());
        d.put("groupName", s.key().group());
        d.put("name", s.key().service());
        d.put("protectThreshold", s.spec().protectThreshold());
        d.put("metadata", s.spec().metadata());
        d.put("selector", Map.of("type", "none"));
        List<Map<String, Object>> clusters = new ArrayList<>();
        for (Service.ClusterSummary c : s.clusters()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("name", c.name());
            cm.put("healthChecker", healthChecker(c.healthCheck()));
            cm.put("metadata", Map.of());
            cm.put("instanceCount", c.instances());
            cm.put("healthyInstanceCount", c.healthyInstances());
            List<Map<String, Object>> unprobed = new ArrayList<>();
            if (c.healthCheck().type() != CheckerType.NONE) {
                for (Instance i : instances) {
                    if (!i.ephemeral() && i.cluster().equals(c.name())) {
                        notProbed
                                .apply(i, c.healthCheck())
                                .ifPresent(reason ->
                                        unprobed.add(Map.of("ip", i.ip(), "port", i.port(), "reason", reason)));
                    }
                }
            }
            cm.put("notProbed", unprobed);
            clusters.add(cm);
        }
        d.put("clusters", clusters);
        d.put("ephemeralInstanceCount", s.ephemeralInstances());
        d.put("persistentInstanceCount", s.persistentInstances());
        d.put("healthyInstanceCount", s.healthyInstances());
        return d;
    }

    private static Map<String, Object> healthChecker(HealthCheckSettings h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", h.type().name());
        switch (h.type()) {
            case HTTP -> {
                m.put("path", h.httpPath());
                m.put("expectedResponseCode", h.expectedCodes());
            }
            case TCP, NONE -> {}
        }
        m.put("checkPort", h.checkPort());
        m.put("useInstancePort4Check", h.useInstancePort());
        return m;
    }
}
