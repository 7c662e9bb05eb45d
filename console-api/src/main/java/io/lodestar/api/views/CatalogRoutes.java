package io.lodestar.api.views;

import static io.javalin.http.HandlerType.GET;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.ViewOp;
import io.lodestar.error.NotFoundException;
import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.Service;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The service catalog the console shows, field for field as Nacos 2.5's {@code
 * naming/controllers/CatalogController} ({@code listDetail}, {@code serviceDetail}) and {@code
 * CatalogServiceV2Impl} answer: a page of a namespace's services with their counts, and one service
 * with its clusters. Counts take every instance, disabled and unhealthy ones included, as Nacos's
 * console counts them. Answered from this node's copy of the registry (stored services and
 * persistent instances from the store, ephemeral ones from Distro's replica), so any node answers
 * for the cluster.
 */
public final class CatalogRoutes {
    public static final String SERVICES = "/nacos/v1/ns/catalog/services";
    public static final String SERVICE = "/nacos/v1/ns/catalog/service";
    /** What Nacos reports as a cluster's {@code defaultPort}: it keeps no such port either. */
    private static final int NACOS_DEFAULT_PORT = 80;

    private final NamingService naming;

    private CatalogRoutes(NamingService naming) {
        this.naming = naming;
    }

    public static void install(Routes routes, NamingService naming) {
        CatalogRoutes catalog = new CatalogRoutes(naming);
        routes.add(GET, SERVICES, ViewRequests::catalogServices, catalog::services)
                .add(GET, SERVICE, ViewRequests::catalogService, catalog::service);
    }

    /**
     * {@code {"count": N, "serviceList": [{name, groupName, clusterCount, ipCount,
     * healthyInstanceCount, triggerFlag}]}}, sorted by group then name (Nacos's order is its hash
     * set's); with {@code withInstances} Nacos's list of {@code ServiceDetailInfo} instead.
     */
    private void services(ViewOp.CatalogServices op, Answer answer) {
        List<Service> matching = new ArrayList<>();
        for (ServiceKey key : naming.allServices()) {
            if (!key.namespace().equals(op.namespace())
                    || op.groupContains() != null && !key.group().contains(op.groupContains())
                    || op.nameContains() != null && !key.service().contains(op.nameContains())) {
                continue;
            }
            Optional<Service> s = naming.service(key);
            if (s.isPresent() && (!op.hasIpCount() || s.get().instances() > 0)) {
                matching.add(s.get());
            }
        }
        matching.sort(Comparator.comparing((Service s) -> s.key().group())
                .thenComparing(s -> s.key().service()));
        List<Service> page = ViewRoutes.page(matching, op.pageNo(), op.pageSize());
        if (op.withInstances()) {
            answer.answerJson(page.stream().map(this::detailInfo).toList());
            return;
        }
        List<Map<String, Object>> list = new ArrayList<>();
        for (Service s : page) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("name", s.key().service());
            v.put("groupName", s.key().group());
            v.put("clusterCount", s.clusters().size());
            v.put("ipCount", s.instances());
            v.put("healthyInstanceCount", s.healthyInstances());
            v.put("triggerFlag", String.valueOf(triggered(s)));
            list.add(v);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("count", matching.size());
        body.put("serviceList", list);
        answer.answerJson(body);
    }

    /** Nacos's rule: the healthy share at or below the protect threshold (never with no instance). */
    private static boolean triggered(Service s) {
        return s.instances() > 0
                && (double) s.healthyInstances() / s.instances() <= s.spec().protectThreshold();
    }

    /** Nacos's {@code ServiceDetailInfo}: the service's hosts by cluster. */
    private Map<String, Object> detailInfo(Service s) {
        Map<String, Object> clusterMap = new TreeMap<>();
        for (Instance i : naming.allInstances(s.key())) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> hosts = (List<Map<String, Object>>)
                    ((Map<String, Object>) clusterMap.computeIfAbsent(i.cluster(), c -> clusterInfo(s, c)))
                            .get("hosts");
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("ip", i.ip());
            h.put("port", i.port());
            h.put("valid", i.healthy());
            h.put("enabled", i.enabled());
            h.put("weight", i.weight());
            h.put("metadata", i.metadata());
            hosts.add(h);
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("namespace", s.key().namespace());
        d.put("serviceName", s.key().service());
        d.put("groupName", s.key().group());
        d.put("clusterMap", clusterMap);
        d.put("metadata", s.spec().metadata());
        d.put("protectThreshold", s.spec().protectThreshold());
        d.put("selector", Map.of("type", "none"));
        return d;
    }

    private static Map<String, Object> clusterInfo(Service s, String cluster) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("clusterName", cluster);
        c.put("healthChecker", healthChecker(s.spec().settingsFor(cluster)));
        c.put("metadata", Map.of());
        c.put("hosts", new ArrayList<Map<String, Object>>());
        return c;
    }

    /**
     * {@code {"service": {name, groupName, protectThreshold, selector, metadata}, "clusters":
     * [{serviceName, name, healthChecker, defaultPort, defaultCheckPort, useIPPort4Check,
     * metadata}]}}; 404 naming the service when this node knows none by that name.
     */
    private void service(ViewOp.CatalogService op, Answer answer) {
        ServiceKey key = op.service();
        Service s = naming.service(key)
                .orElseThrow(() -> new NotFoundException(
                        "service", "service " + key.group() + "@@" + key.service() + " is not found!"));
        Map<String, Object> service = new LinkedHashMap<>();
        service.put("name", key.service());
        service.put("groupName", key.group());
        service.put("protectThreshold", s.spec().protectThreshold());
        service.put("selector", Map.of("type", "none"));
        service.put("metadata", s.spec().metadata());
        List<Map<String, Object>> clusters = new ArrayList<>();
        for (Service.ClusterSummary c : s.clusters()) {
            HealthCheckSettings h = c.healthCheck();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("serviceName", key.groupedName());
            m.put("name", c.name());
            m.put("healthChecker", healthChecker(h));
            m.put("defaultPort", NACOS_DEFAULT_PORT);
            m.put("defaultCheckPort", h.checkPort());
            m.put("useIPPort4Check", h.useInstancePort());
            m.put("metadata", Map.of());
            clusters.add(m);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("service", service);
        body.put("clusters", clusters);
        answer.answerJson(body);
    }

    /** Nacos's {@code AbstractHealthChecker} as it serializes: {@code type}, and an HTTP checker's fields. */
    private static Map<String, Object> healthChecker(HealthCheckSettings h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", h.type().name());
        if (h.type() == io.lodestar.naming.model.CheckerType.HTTP) {
            m.put("path", h.httpPath());
            m.put("headers", "");
            m.put("expectedResponseCode", h.expectedCodes());
        }
        return m;
    }
}
