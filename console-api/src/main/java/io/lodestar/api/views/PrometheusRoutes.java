package io.lodestar.api.views;

import static io.javalin.http.HandlerType.GET;

import io.lodestar.api.http.Answer;
import io.lodestar.api.http.Routes;
import io.lodestar.api.request.ViewOp;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;
import io.lodestar.naming.service.NamingService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prometheus's HTTP service discovery ({@code http_sd_configs}) over the registry, as Nacos 2.5's
 * {@code prometheus/controller/PrometheusController} and {@code PrometheusUtils} answer it: a JSON
 * array of {@code {"targets": ["ip:port"], "labels": {...}}}, one per instance, labelled with {@code
 * __meta_clusterName} and the instance's metadata (each key made a valid Prometheus label name: a
 * character other than a letter, digit or {@code _} becomes {@code _}, where Nacos replaces only
 * {@code .} and {@code -} and lets Prometheus refuse the whole answer over one odd key). Lodestar
 * adds {@code __meta_namespaceId}, {@code __meta_groupName} and {@code __meta_serviceName}, which
 * Nacos leaves out, so a relabelling can name the job after the service.
 *
 * <p>Only healthy, enabled instances are targets (Nacos lists every one), ephemeral and persistent,
 * from this node's copy of the registry: Distro replicates ephemeral instances to every member, so
 * any node answers for the cluster.
 */
public final class PrometheusRoutes {
    public static final String ALL = "/nacos/prometheus";
    public static final String NAMESPACE = ALL + "/namespaceId/{namespaceId}";
    public static final String SERVICE = NAMESPACE + "/service/{service}";

    private final NamingService naming;

    private PrometheusRoutes(NamingService naming) {
        this.naming = naming;
    }

    public static void install(Routes routes, NamingService naming) {
        PrometheusRoutes p = new PrometheusRoutes(naming);
        routes.add(GET, ALL, ViewRequests::prometheus, p::targets)
                .add(GET, NAMESPACE, ViewRequests::prometheus, p::targets)
                .add(GET, SERVICE, ViewRequests::prometheus, p::targets);
    }

    /** Sorted by namespace, group, service, cluster, ip and port, so that two scrapes compare equal. */
    private void targets(ViewOp.PrometheusTargets op, Answer answer) {
        List<ServiceKey> services = new ArrayList<>();
        for (ServiceKey s : naming.allServices()) {
            if ((op.namespace() == null || s.namespace().equals(op.namespace()))
                    && (op.service() == null || s.service().equals(op.service()))) {
                services.add(s);
            }
        }
        services.sort(Comparator.comparing(ServiceKey::namespace)
                .thenComparing(ServiceKey::group)
                .thenComparing(ServiceKey::service));
        List<Map<String, Object>> targets = new ArrayList<>();
        for (ServiceKey s : services) {
            List<Instance> instances = new ArrayList<>(naming.allInstances(s));
            instances.removeIf(i -> !i.healthy() || !i.enabled());
            instances.sort(Comparator.comparing(Instance::cluster)
                    .thenComparing(Instance::ip)
                    .thenComparingInt(Instance::port));
            for (Instance i : instances) {
                targets.add(target(s, i));
            }
        }
        answer.answerJson(targets);
    }

    private static Map<String, Object> target(ServiceKey s, Instance i) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("__meta_clusterName", i.cluster());
        i.metadata().forEach((k, v) -> labels.put(labelName(k), v));
        labels.put("__meta_namespaceId", s.namespace());
        labels.put("__meta_groupName", s.group());
        labels.put("__meta_serviceName", s.service());
        Map<String, Object> t = new LinkedHashMap<>();
        String host = i.ip().indexOf(':') >= 0 ? "[" + i.ip() + "]" : i.ip();
        t.put("targets", List.of(host + ":" + i.port()));
        t.put("labels", labels);
        return t;
    }

    /** A metadata key as a Prometheus label name ({@code [a-zA-Z_][a-zA-Z0-9_]*}). */
    static String labelName(String key) {
        StringBuilder b = new StringBuilder(key.length() + 1);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
            b.append(ok ? c : '_');
        }
        if (b.isEmpty() || Character.isDigit(b.charAt(0))) {
            b.insert(0, '_');
        }
        return b.toString();
    }
}
