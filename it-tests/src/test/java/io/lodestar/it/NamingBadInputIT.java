package io.lodestar.it;

import static io.lodestar.it.Http.params;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every bad request to the naming API gets a 4xx whose body names the problem, never a 500, and
 * writes nothing: afterwards no service, no instance and no store revision was added.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NamingBadInputIT {
    private static final String NS = "/nacos/v1/ns";
    private static final String SERVICE = "DEFAULT_GROUP@@bad-input";

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    /** A request: GET and DELETE carry their parameters in the query, the others as a form body. */
    record Case(String why, String method, String path, Map<String, String> params, int status, String mentions) {}

    /** A valid registration, with {@code kv} pairs replacing or (value null) removing parameters. */
    private static Map<String, String> instance(String... kv) {
        Map<String, String> p = new LinkedHashMap<>(params(
                "serviceName",
                SERVICE,
                "ip",
                "127.1.1.1",
                "port",
                "8080",
                "weight",
                "1",
                "enable",
                "true",
                "healthy",
                "true",
                "ephemeral",
                "true",
                "clusterName",
                "c1",
                "metadata",
                "{\"k\":\"v\"}"));
        for (int i = 0; i < kv.length; i += 2) {
            if (kv[i + 1] == null) {
                p.remove(kv[i]);
            } else {
                p.put(kv[i], kv[i + 1]);
            }
        }
        return p;
    }

    private static Case register(String why, String mentions, String... kv) {
        return new Case(why, "POST", NS + "/instance", instance(kv), 400, mentions);
    }

    private static List<Case> cases() {
        String bigValue = "x".repeat(70 * 1024);
        List<Case> cases = new ArrayList<>(List.of(
                register("missing serviceName", "serviceName", "serviceName", null),
                register("blank serviceName", "serviceName", "serviceName", " "),
                register("illegal serviceName", "serviceName", "serviceName", "a b"),
                register("serviceName of a group only", "serviceName", "serviceName", "G@@"),
                register("serviceName with two groups", "serviceName", "serviceName", "G@@H@@s"),
                register("groupName disagreeing with serviceName", "groupName", "groupName", "OTHER"),
                register("illegal groupName", "groupName", "serviceName", "s", "groupName", "g g"),
                register("illegal namespace id", "namespaceId", "namespaceId", "ns/1"),
                register("namespace id too long", "namespaceId", "namespaceId", "n".repeat(129)),
                register("missing ip", "ip", "ip", null),
                register("illegal ip", "ip", "ip", "not an ip!"),
                register("IPv4 with a 256", "ip", "ip", "127.0.0.256"),
                register("missing port", "port", "port", null),
                register("non-numeric port", "port", "port", "http"),
                register("port out of range", "port", "port", "65536"),
                register("negative port", "port", "port", "-1"),
                register("port beyond int", "port", "port", "99999999999"),
                register("non-numeric weight", "weight", "weight", "heavy"),
                register("NaN weight", "weight", "weight", "NaN"),
                register("enable not a boolean", "enable", "enable", "maybe"),
                register("healthy not a boolean", "healthy", "healthy", "1"),
                register("ephemeral not a boolean", "ephemeral", "ephemeral", "sometimes"),
                register("illegal clusterName", "clusterName", "clusterName", "c/1"),
                register("metadata a JSON array", "metadata", "metadata", "[1,2]"),
                register("metadata a JSON string", "metadata", "metadata", "\"k=v\""),
                register("metadata truncated JSON", "metadata", "metadata", "{\"k\":"),
                register("metadata with a nested object", "metadata", "metadata", "{\"k\":{\"n\":1}}"),
                register("metadata neither JSON nor k=v", "metadata", "metadata", "just words"),
                register("oversized metadata", "metadata", "metadata", "{\"big\":\"" + bigValue + "\"}"),
                register(
                        "unparsable heartbeat interval",
                        "metadata",
                        "metadata",
                        "{\"preserved.heart.beat.interval\":\"soon\"}"),
                register("persistent with a bad port", "port", "ephemeral", "false", "port", "x"),
                new Case(
                        "deregister without ip",
                        "DELETE",
                        NS + "/instance",
                        params("serviceName", SERVICE, "port", "1"),
                        400,
                        "ip"),
                new Case(
                        "deregister with a bad port",
                        "DELETE",
                        NS + "/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "x"),
                        400,
                        "port"),
                new Case("update without port", "PUT", NS + "/instance", instance("port", null), 400, "port"),
                new Case(
                        "update with bad metadata",
                        "PUT",
                        NS + "/instance",
                        instance("metadata", "[]"),
                        400,
                        "metadata"),
                new Case(
                        "patch with a bad weight",
                        "PATCH",
                        NS + "/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "8080", "weight", "x"),
                        400,
                        "weight"),
                new Case(
                        "patch of health",
                        "PATCH",
                        NS + "/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "8080", "healthy", "false"),
                        400,
                        "healthy"),
                new Case(
                        "detail without ip",
                        "GET",
                        NS + "/instance",
                        params("serviceName", SERVICE, "port", "1"),
                        400,
                        "ip"),
                new Case(
                        "detail of an unknown instance",
                        "GET",
                        NS + "/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "8080"),
                        404,
                        "not found"),
                new Case("list without serviceName", "GET", NS + "/instance/list", params(), 400, "serviceName"),
                new Case(
                        "list with a bad udpPort",
                        "GET",
                        NS + "/instance/list",
                        params("serviceName", SERVICE, "udpPort", "x"),
                        400,
                        "udpPort"),
                new Case(
                        "list with udpPort out of range",
                        "GET",
                        NS + "/instance/list",
                        params("serviceName", SERVICE, "udpPort", "70000"),
                        400,
                        "udpPort"),
                new Case(
                        "list with a bad healthyOnly",
                        "GET",
                        NS + "/instance/list",
                        params("serviceName", SERVICE, "healthyOnly", "maybe"),
                        400,
                        "healthyOnly"),
                new Case(
                        "list with an illegal cluster",
                        "GET",
                        NS + "/instance/list",
                        params("serviceName", SERVICE, "clusters", "a,b/c"),
                        400,
                        "clusters"),
                new Case(
                        "list in an illegal namespace",
                        "GET",
                        NS + "/instance/list",
                        params("serviceName", SERVICE, "namespaceId", "a b"),
                        400,
                        "namespaceId"),
                new Case(
                        "malformed beat JSON",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE + "&ip=127.1.1.1&port=8080",
                        params("beat", "{\"ip\":\"127.1.1.1\","),
                        400,
                        "beat"),
                new Case(
                        "beat not an object",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE,
                        params("beat", "[1]"),
                        400,
                        "beat"),
                new Case(
                        "beat with a non-numeric port",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE,
                        params("beat", "{\"ip\":\"127.1.1.1\",\"port\":\"x\"}"),
                        400,
                        "beat"),
                new Case(
                        "beat for another address",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE + "&ip=127.1.1.1&port=8080",
                        params("beat", "{\"ip\":\"127.9.9.9\",\"port\":8080}"),
                        400,
                        "beat"),
                new Case(
                        "beat for another service",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE,
                        params("beat", "{\"ip\":\"127.1.1.1\",\"port\":8080,\"serviceName\":\"G@@other\"}"),
                        400,
                        "beat"),
                new Case(
                        "beat with an oversized metadata",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE,
                        params(
                                "beat",
                                "{\"ip\":\"127.1.1.1\",\"port\":8080,\"metadata\":{\"big\":\"" + bigValue + "\"}}"),
                        400,
                        "metadata"),
                new Case(
                        "light beat without ip",
                        "PUT",
                        NS + "/instance/beat?serviceName=" + SERVICE + "&port=8080",
                        params(),
                        400,
                        "ip"),
                new Case(
                        "beat without serviceName",
                        "PUT",
                        NS + "/instance/beat?ip=127.1.1.1&port=8080",
                        params(),
                        400,
                        "serviceName"),
                new Case(
                        "service with a non-numeric protectThreshold",
                        "POST",
                        NS + "/service",
                        params("serviceName", "bad-svc", "protectThreshold", "half"),
                        400,
                        "protectThreshold"),
                new Case(
                        "service with protectThreshold above 1",
                        "POST",
                        NS + "/service",
                        params("serviceName", "bad-svc", "protectThreshold", "2"),
                        400,
                        "protectThreshold"),
                new Case(
                        "service with bad metadata",
                        "POST",
                        NS + "/service",
                        params("serviceName", "bad-svc", "metadata", "[1]"),
                        400,
                        "metadata"),
                new Case(
                        "service with an illegal name",
                        "POST",
                        NS + "/service",
                        params("serviceName", "bad svc"),
                        400,
                        "serviceName"),
                new Case(
                        "update of an unknown service",
                        "PUT",
                        NS + "/service",
                        params("serviceName", "bad-svc"),
                        400,
                        "not found"),
                new Case(
                        "delete of an unknown service",
                        "DELETE",
                        NS + "/service",
                        params("serviceName", "bad-svc"),
                        400,
                        "service DEFAULT_GROUP@@bad-svc not found!"),
                new Case(
                        "detail of an unknown service",
                        "GET",
                        NS + "/service",
                        params("serviceName", "bad-svc"),
                        400,
                        "not found"),
                new Case(
                        "service list with pageNo 0",
                        "GET",
                        NS + "/service/list",
                        params("pageNo", "0", "pageSize", "10"),
                        400,
                        "pageNo"),
                new Case(
                        "service list with a bad pageSize",
                        "GET",
                        NS + "/service/list",
                        params("pageNo", "1", "pageSize", "many"),
                        400,
                        "pageSize"),
                new Case(
                        "cluster with an unknown checker",
                        "PUT",
                        NS + "/cluster",
                        params("serviceName", "bad-svc", "clusterName", "c1", "healthChecker", "{\"type\":\"MYSQL\"}"),
                        400,
                        "healthChecker"),
                new Case(
                        "cluster with a malformed checker",
                        "PUT",
                        NS + "/cluster",
                        params("serviceName", "bad-svc", "clusterName", "c1", "healthChecker", "{"),
                        400,
                        "healthChecker"),
                new Case(
                        "health without the flag",
                        "PUT",
                        NS + "/health/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "8080"),
                        400,
                        "healthy"),
                new Case(
                        "health with a bad flag",
                        "PUT",
                        NS + "/health/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "8080", "healthy", "sick"),
                        400,
                        "healthy"),
                new Case(
                        "health of an unknown instance",
                        "PUT",
                        NS + "/health/instance",
                        params("serviceName", SERVICE, "ip", "127.1.1.1", "port", "8080", "healthy", "false"),
                        404,
                        "not found"),
                new Case(
                        "a switch change",
                        "PUT",
                        NS + "/operator/switches",
                        params("entry", "pushEnabled", "value", "false"),
                        400,
                        "entry"),
                new Case("v2 register without ip", "POST", "/nacos/v2/ns/instance", instance("ip", null), 400, "10000"),
                new Case(
                        "v2 register with a bad port",
                        "POST",
                        "/nacos/v2/ns/instance",
                        instance("port", "x"),
                        400,
                        "20002"),
                new Case(
                        "v2 list without serviceName",
                        "GET",
                        "/nacos/v2/ns/instance/list",
                        params(),
                        400,
                        "serviceName"),
                // the operator's queries: the catalog and Prometheus's targets
                new Case("catalog page 0", "GET", NS + "/catalog/services", params("pageNo", "0"), 400, "pageNo"),
                new Case(
                        "catalog page too big",
                        "GET",
                        NS + "/catalog/services",
                        params("pageSize", "1001"),
                        400,
                        "pageSize"),
                new Case(
                        "catalog hasIpCount not a boolean",
                        "GET",
                        NS + "/catalog/services",
                        params("hasIpCount", "yes"),
                        400,
                        "hasIpCount"),
                new Case(
                        "catalog name part as a regular expression",
                        "GET",
                        NS + "/catalog/services",
                        params("serviceNameParam", ".*(a+)+"),
                        400,
                        "serviceNameParam"),
                new Case(
                        "catalog group part with a slash",
                        "GET",
                        NS + "/catalog/services",
                        params("groupNameParam", "a/b"),
                        400,
                        "groupNameParam"),
                new Case(
                        "catalog namespaces disagreeing",
                        "GET",
                        NS + "/catalog/services",
                        params("namespaceId", "a", "tenant", "b"),
                        400,
                        "namespaceId"),
                new Case(
                        "catalog service without a name", "GET", NS + "/catalog/service", params(), 400, "serviceName"),
                new Case(
                        "catalog service with an illegal name",
                        "GET",
                        NS + "/catalog/service",
                        params("serviceName", "a b"),
                        400,
                        "serviceName"),
                new Case(
                        "prometheus namespace with a slash",
                        "GET",
                        "/nacos/prometheus/namespaceId/a%2Fb",
                        params(),
                        400,
                        "namespaceId"),
                new Case(
                        "prometheus service with a space",
                        "GET",
                        "/nacos/prometheus/namespaceId/public/service/a%20b",
                        params(),
                        400,
                        "serviceName"),
                new Case("list by POST", "POST", NS + "/instance/list", params("serviceName", SERVICE), 405, null),
                new Case("beat by GET", "GET", NS + "/instance/beat", params("serviceName", SERVICE), 405, null),
                new Case("service by PATCH", "PATCH", NS + "/service", params("serviceName", SERVICE), 405, null),
                new Case("metrics by DELETE", "DELETE", NS + "/operator/metrics", params(), 405, null)));
        return cases;
    }

    @Test
    void badNamingRequestsAreRejectedWithAReasonAndWriteNothing() throws Exception {
        ServerProcess p = cluster.startStandalone("naming-bad-input");
        long revision = ConfigBadInputIT.revision(p);
        List<String> failures = new ArrayList<>();
        for (Case c : cases()) {
            Http.Response r = c.method.equals("GET") || c.method.equals("DELETE")
                    ? Http.send(
                            p.httpAddress(),
                            c.method,
                            c.path + (c.params.isEmpty() ? "" : "?" + Http.query(c.params)),
                            Map.of())
                    : Http.send(p.httpAddress(), c.method, c.path, c.params);
            if (r.status() != c.status) {
                failures.add(c.why + ": expected " + c.status + ", got " + r.status() + " " + r.body());
            } else if (c.mentions != null && !r.body().contains(c.mentions)) {
                failures.add(c.why + ": the answer should name '" + c.mentions + "': " + r.body());
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));

        JsonNode list = Http.json(p.httpAddress(), NS + "/instance/list?serviceName=" + SERVICE);
        assertEquals(0, list.get("hosts").size(), "no instance registered: " + list);
        JsonNode services = Http.json(p.httpAddress(), NS + "/service/list?pageNo=1&pageSize=100");
        assertEquals(0, services.get("count").asInt(), "no service created: " + services);
        JsonNode metrics = Http.json(p.httpAddress(), NS + "/operator/metrics");
        assertEquals(0, metrics.get("instanceCount").asInt(), metrics.toString());
        assertEquals(0, metrics.get("serviceCount").asInt(), metrics.toString());
        assertEquals(revision, ConfigBadInputIT.revision(p), "no bad request wrote to the store");
        assertEquals(
                200,
                Http.get(p.httpAddress(), "/nacos/v1/console/health/liveness").status(),
                "still serving");
    }
}
