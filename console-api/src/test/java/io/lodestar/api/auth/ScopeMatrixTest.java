package io.lodestar.api.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.grpc.RawGrpcClient;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scope matrix: every HTTP route and gRPC request type that acts on configs or services, tried
 * by a user with rights on one namespace ({@code alice}: {@code team-a}) and one with rights on one
 * group ({@code gina}: {@code public:G1}), with every spelling of the namespace and the group, and
 * every pair of spellings that disagree. A request inside the scope is served; one outside it is
 * refused (403); one whose spellings disagree is refused as bad input (400, naming both). Nothing
 * outside the scope is read or changed, and every audit line names what was actually touched.
 *
 * <p>A new route or request type on configs or services that this table does not cover fails
 * {@link #theMatrixCoversEveryOperationOnResources}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScopeMatrixTest {
    private static final String PUBLIC_SECRET = "public-secret";
    private static final String G2_SECRET = "g2-secret";
    private static final String TEAM_B_SECRET = "teamb-secret";
    private static final List<String> SECRETS = List.of(PUBLIC_SECRET, G2_SECRET, TEAM_B_SECRET);
    private static final String SERVICE = "payments";

    /** How a probe names its target: configs by group and dataId, services by group and service name. */
    enum Kind {
        CONFIG,
        SERVICE,
        /** A listing of a group's services: group names only. */
        LISTING,
        /** The namespace inside each listened key, not beside it. */
        LISTENED,
        /** A namespace's transfer: namespaces only. */
        TRANSFER,
        /** The namespace in the path ({@code {namespaceId}}), and nothing else. */
        PATH,
        /** Every namespace at once: named by nothing. */
        EVERY_NAMESPACE
    }

    /** One request template: the operation it exercises, its fixed fields, and how it names its target. */
    record Probe(String operation, String fixed, Kind kind) {
        boolean grpc() {
            return !operation.contains(" ");
        }

        @Override
        public String toString() {
            return operation + (fixed.isEmpty() ? "" : " " + fixed);
        }
    }

    /** One way to name the target: the fields it adds, and what it must get. */
    record Variant(String name, Map<String, String> fields, Expect expect) {}

    enum Expect {
        SERVED,
        FORBIDDEN,
        CONFLICT
    }

    private static final List<Probe> PROBES = List.of(
            new Probe("GET /nacos/v1/cs/configs", "dataId=db.password", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/configs", "dataId=db.password&show=all", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/configs", "dataId=db.password&beta=true", Kind.CONFIG),
            new Probe(
                    "GET /nacos/v1/cs/configs", "search=accurate&dataId=db.password&pageNo=1&pageSize=10", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/configs", "search=blur&dataId=db.*&pageNo=1&pageSize=10", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/configs", "export=true", Kind.TRANSFER),
            new Probe("POST /nacos/v1/cs/configs", "dataId=db.password&content=rogue", Kind.CONFIG),
            new Probe("POST /nacos/v1/cs/configs", "import=true&policy=OVERWRITE", Kind.TRANSFER),
            new Probe("DELETE /nacos/v1/cs/configs", "dataId=db.password&beta=true", Kind.CONFIG),
            new Probe("POST /lodestar/v1/cs/configs/beta/promote", "dataId=db.password", Kind.CONFIG),
            new Probe(
                    "GET /nacos/v1/cs/history", "search=accurate&dataId=db.password&pageNo=1&pageSize=10", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/history", "dataId=db.password&nid=1", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/history/previous", "dataId=db.password&id=999999", Kind.CONFIG),
            new Probe("POST /lodestar/v1/cs/history/rollback", "dataId=db.password&nid=1", Kind.CONFIG),
            new Probe("POST /nacos/v1/cs/configs/listener", "", Kind.LISTENED),
            new Probe("GET /nacos/v1/cs/configs/listener", "dataId=db.password", Kind.CONFIG),
            new Probe("GET /nacos/v1/cs/listener", "ip=127.0.0.1", Kind.TRANSFER),
            new Probe("GET /nacos/v2/cs/config", "dataId=db.password", Kind.CONFIG),
            new Probe("POST /nacos/v2/cs/config", "dataId=db.password&content=rogue", Kind.CONFIG),
            new Probe("POST /nacos/v1/ns/instance", "ip=127.0.0.66&port=9100", Kind.SERVICE),
            new Probe("PUT /nacos/v1/ns/instance", "ip=127.0.0.1&port=9001&weight=0", Kind.SERVICE),
            new Probe("PATCH /nacos/v1/ns/instance", "ip=127.0.0.1&port=9001&weight=0", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/instance", "ip=127.0.0.1&port=9001", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/instance/list", "", Kind.SERVICE),
            new Probe("PUT /nacos/v1/ns/instance/beat", "ip=127.0.0.1&port=9001", Kind.SERVICE),
            new Probe("PUT /nacos/v1/ns/health/instance", "ip=127.0.0.1&port=9001&healthy=false", Kind.SERVICE),
            new Probe(
                    "PUT /nacos/v1/ns/cluster",
                    "clusterName=DEFAULT&healthChecker=%7B%22type%22%3A%22NONE%22%7D",
                    Kind.SERVICE),
            new Probe("POST /nacos/v1/ns/service", "protectThreshold=0.5", Kind.SERVICE),
            new Probe("PUT /nacos/v1/ns/service", "protectThreshold=0.5", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/service", "", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/service/list", "pageNo=1&pageSize=10", Kind.LISTING),
            new Probe("GET /nacos/v1/ns/service/subscribers", "", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/catalog/instances", "", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/catalog/service", "", Kind.SERVICE),
            new Probe("GET /nacos/v1/ns/catalog/services", "pageNo=1&pageSize=10", Kind.TRANSFER),
            new Probe("GET /nacos/prometheus", "", Kind.EVERY_NAMESPACE),
            new Probe("GET /nacos/prometheus/namespaceId/{namespaceId}", "", Kind.PATH),
            new Probe("GET /nacos/prometheus/namespaceId/{namespaceId}/service/{service}", "", Kind.PATH),
            new Probe("GET /lodestar/v1/cs/delivery", "dataId=db.password", Kind.CONFIG),
            new Probe("POST /nacos/v2/ns/instance", "ip=127.0.0.66&port=9100", Kind.SERVICE),
            new Probe("PUT /nacos/v2/ns/instance", "ip=127.0.0.1&port=9001&weight=0", Kind.SERVICE),
            new Probe("GET /nacos/v2/ns/instance", "ip=127.0.0.1&port=9001", Kind.SERVICE),
            new Probe("GET /nacos/v2/ns/instance/list", "", Kind.SERVICE),
            new Probe("ConfigQueryRequest", "{\"dataId\":\"db.password\"}", Kind.CONFIG),
            new Probe("ConfigPublishRequest", "{\"dataId\":\"db.password\",\"content\":\"rogue\"}", Kind.CONFIG),
            new Probe("ConfigBatchListenRequest", "", Kind.LISTENED),
            new Probe(
                    "InstanceRequest",
                    "{\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.66\",\"port\":9100}}",
                    Kind.SERVICE),
            new Probe(
                    "InstanceRequest",
                    "{\"type\":\"deregisterInstance\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":9001}}",
                    Kind.SERVICE),
            new Probe(
                    "BatchInstanceRequest",
                    "{\"type\":\"batchRegisterInstance\",\"instances\":[{\"ip\":\"127.0.0.66\",\"port\":9100}]}",
                    Kind.SERVICE),
            new Probe(
                    "PersistentInstanceRequest",
                    "{\"type\":\"registerInstance\",\"instance\":{\"ip\":\"127.0.0.66\",\"port\":9100}}",
                    Kind.SERVICE),
            new Probe("ServiceQueryRequest", "{}", Kind.SERVICE),
            new Probe("SubscribeServiceRequest", "{\"subscribe\":true}", Kind.SERVICE),
            new Probe("ServiceListRequest", "{\"pageNo\":1,\"pageSize\":10}", Kind.LISTING),
            // the deletes last: in scope they remove what the probes above made in team-a and G1
            new Probe("ConfigRemoveRequest", "{\"dataId\":\"db.password\"}", Kind.CONFIG),
            new Probe("DELETE /nacos/v1/cs/configs", "dataId=db.password", Kind.CONFIG),
            new Probe("DELETE /nacos/v2/cs/config", "dataId=db.password", Kind.CONFIG),
            new Probe("DELETE /nacos/v1/ns/instance", "ip=127.0.0.1&port=9001", Kind.SERVICE),
            new Probe("DELETE /nacos/v2/ns/instance", "ip=127.0.0.1&port=9001", Kind.SERVICE),
            new Probe("DELETE /nacos/v1/ns/service", "", Kind.SERVICE));

    @TempDir
    static Path dir;

    AuthServer s;
    RawGrpcClient grpc;
    Map<String, String> alice;
    Map<String, String> gina;
    /** Every body answered to alice or gina: none may hold another scope's secret. */
    final List<String> answered = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        s = AuthServer.start(dir);
        admin("POST", "/nacos/v1/console/namespaces", "customNamespaceId=team-a&namespaceName=A");
        admin("POST", "/nacos/v1/console/namespaces", "customNamespaceId=team-b&namespaceName=B");
        alice = grant("alice", "team-a", "transfer:team-a");
        gina = grant("gina", "public:G1:*");
        admin("POST", "/nacos/v1/cs/configs", "dataId=db.password&group=DEFAULT_GROUP&content=" + PUBLIC_SECRET);
        admin("POST", "/nacos/v1/cs/configs", "dataId=db.password&group=G2&content=" + G2_SECRET);
        admin(
                "POST",
                "/nacos/v1/cs/configs",
                "tenant=team-b&dataId=db.password&group=DEFAULT_GROUP&content=" + TEAM_B_SECRET);
        admin("POST", "/nacos/v1/ns/instance", "serviceName=" + SERVICE + "&ip=127.0.0.1&port=9001");
        admin("POST", "/nacos/v1/ns/instance", "serviceName=G2@@" + SERVICE + "&ip=127.0.0.1&port=9001");
        admin("POST", "/nacos/v1/ns/instance", "namespaceId=team-b&serviceName=" + SERVICE + "&ip=127.0.0.1&port=9002");
        grpc = new RawGrpcClient(s.grpcPort).setUp();
        grpc.awaitPushed("SetupAckRequest", 5);
    }

    @AfterAll
    void stop() throws Exception {
        grpc.close();
        s.close();
    }

    private Map<String, String> grant(String user, String... resources) throws Exception {
        String token = s.user(user, user + "-password");
        admin("POST", "/nacos/v1/auth/roles", "role=" + user + "-role&username=" + user);
        for (String resource : resources) {
            admin("POST", "/nacos/v1/auth/permissions", "role=" + user + "-role&resource=" + resource + "&action=rw");
        }
        return AuthServer.bearer(token);
    }

    private void admin(String method, String path, String form) throws Exception {
        HttpResponse<String> r = s.send(method, path, form, s.admin());
        assertEquals(200, r.statusCode(), method + " " + path + " " + form + ": " + r.body());
    }

    /** Alice's ways to name a namespace: each name alone, in and out of her scope, and every disagreeing pair. */
    static List<Variant> namespaceVariants(Kind kind) {
        List<Variant> out = new ArrayList<>();
        if (kind == Kind.EVERY_NAMESPACE) {
            return List.of(new Variant("every namespace", Map.of(), Expect.FORBIDDEN));
        }
        if (kind == Kind.PATH) {
            out.add(new Variant("path team-a", Map.of("namespaceId", "team-a"), Expect.SERVED));
            for (String other : List.of("team-b", "public", "PUBLIC")) {
                out.add(new Variant("path " + other, Map.of("namespaceId", other), Expect.FORBIDDEN));
            }
            return out;
        }
        List<String> names = kind == Kind.LISTENED ? List.of("tenant") : List.of("tenant", "namespaceId", "namespace");
        for (String name : names) {
            out.add(new Variant(name + "=team-a", Map.of(name, "team-a"), Expect.SERVED));
            out.add(new Variant(name + "=team-b", Map.of(name, "team-b"), Expect.FORBIDDEN));
            out.add(new Variant(name + "=public", Map.of(name, "public"), Expect.FORBIDDEN));
            out.add(new Variant(name + "=PUBLIC", Map.of(name, "PUBLIC"), Expect.FORBIDDEN));
            out.add(new Variant(name + "=''", Map.of(name, ""), Expect.FORBIDDEN));
        }
        out.add(new Variant("no namespace", Map.of(), Expect.FORBIDDEN));
        if (kind == Kind.LISTENED) {
            return out;
        }
        for (String a : names) {
            for (String b : names) {
                if (!a.equals(b)) {
                    for (String other : List.of("team-b", "", "public")) {
                        Map<String, String> fields = new LinkedHashMap<>();
                        fields.put(a, "team-a");
                        fields.put(b, other);
                        out.add(new Variant(a + "=team-a&" + b + "='" + other + "'", fields, Expect.CONFLICT));
                    }
                }
            }
        }
        out.add(new Variant(
                "tenant=team-a&namespaceId=team-a",
                Map.of("tenant", "team-a", "namespaceId", "team-a"),
                Expect.SERVED));
        return out;
    }

    /** Gina's ways to name a group (in the public namespace): each name alone, in and out of her scope, and disagreeing pairs. */
    static List<Variant> groupVariants(Kind kind) {
        List<Variant> out = new ArrayList<>();
        List<String> names = kind == Kind.LISTENED ? List.of("group") : List.of("group", "groupName");
        for (String name : names) {
            out.add(new Variant(name + "=G1", Map.of(name, "G1"), Expect.SERVED));
            out.add(new Variant(name + "=G2", Map.of(name, "G2"), Expect.FORBIDDEN));
        }
        out.add(new Variant("no group", Map.of(), Expect.FORBIDDEN));
        if (kind == Kind.LISTENED) {
            return out;
        }
        out.add(new Variant("group=G1&groupName=G2", Map.of("group", "G1", "groupName", "G2"), Expect.CONFLICT));
        out.add(new Variant("groupName=G1&group=G2", Map.of("groupName", "G1", "group", "G2"), Expect.CONFLICT));
        if (kind == Kind.SERVICE) {
            out.add(new Variant("serviceName=G1@@", Map.of("serviceName", "G1@@" + SERVICE), Expect.SERVED));
            out.add(new Variant("serviceName=G2@@", Map.of("serviceName", "G2@@" + SERVICE), Expect.FORBIDDEN));
            out.add(new Variant(
                    "groupName=G1&serviceName=G2@@",
                    Map.of("groupName", "G1", "serviceName", "G2@@" + SERVICE),
                    Expect.CONFLICT));
            out.add(new Variant(
                    "group=G1&serviceName=G2@@",
                    Map.of("group", "G1", "serviceName", "G2@@" + SERVICE),
                    Expect.CONFLICT));
        }
        return out;
    }

    @Test
    @Order(0)
    void theMatrixCoversEveryOperationOnResources() {
        Set<String> onResources = AccessRules.declared().stream()
                .filter(op -> AccessRules.of(op) instanceof Access.OnResources)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> covered = PROBES.stream().map(Probe::operation).collect(Collectors.toSet());
        onResources.removeAll(covered);
        assertEquals(Set.of(), onResources, "operations on configs or services the scope matrix does not try");
    }

    @TestFactory
    @Order(1)
    Stream<DynamicTest> aNamespaceScopedUserReachesItsNamespaceOnlyWhateverTheSpelling() {
        return PROBES.stream()
                .flatMap(p -> namespaceVariants(p.kind()).stream()
                        .map(v -> DynamicTest.dynamicTest(
                                "alice " + p + " " + v.name(), () -> check(p, v, alice, "team-a"))));
    }

    @TestFactory
    @Order(2)
    Stream<DynamicTest> aGroupScopedUserReachesItsGroupOnlyWhateverTheSpelling() {
        return PROBES.stream()
                .filter(p -> p.kind() != Kind.TRANSFER && p.kind() != Kind.PATH && p.kind() != Kind.EVERY_NAMESPACE)
                .flatMap(p -> groupVariants(p.kind()).stream()
                        .map(v ->
                                DynamicTest.dynamicTest("gina " + p + " " + v.name(), () -> check(p, v, gina, null))));
    }

    @Test
    @Order(3)
    void nothingOutsideTheScopesWasReadOrChanged() throws Exception {
        assertEquals(PUBLIC_SECRET, config("dataId=db.password&group=DEFAULT_GROUP"));
        assertEquals(G2_SECRET, config("dataId=db.password&group=G2"));
        assertEquals(TEAM_B_SECRET, config("tenant=team-b&dataId=db.password&group=DEFAULT_GROUP"));
        assertEquals(List.of("127.0.0.1:9001:1.0"), hosts("serviceName=" + SERVICE));
        assertEquals(List.of("127.0.0.1:9001:1.0"), hosts("serviceName=G2@@" + SERVICE));
        assertEquals(List.of("127.0.0.1:9002:1.0"), hosts("namespaceId=team-b&serviceName=" + SERVICE));
        for (String body : answered) {
            for (String secret : SECRETS) {
                assertFalse(body.contains(secret), "an answer leaked '" + secret + "': " + body);
            }
        }
    }

    @Test
    @Order(4)
    void everyAuditLineOfAServedRequestNamesWhatItTouched() throws Exception {
        Path log = dir.resolve("audit").resolve("audit.log");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            lines.add(AuthServer.JSON.readTree(line));
        }
        boolean aliceWrote = false;
        boolean ginaWrote = false;
        for (JsonNode line : lines) {
            String who = line.path("principal").asText();
            if (line.path("outcome").asInt() != 200 || !(who.equals("alice") || who.equals("gina"))) {
                continue;
            }
            for (JsonNode resource : line.path("resources")) {
                String r = resource.asText();
                if (who.equals("alice")) {
                    assertTrue(r.startsWith("team-a:") || r.equals("transfer:team-a"), line.toString());
                    aliceWrote |= r.equals("team-a:DEFAULT_GROUP:config/db.password");
                } else {
                    assertTrue(r.startsWith("public:G1:"), line.toString());
                    ginaWrote |= r.equals("public:G1:naming/" + SERVICE);
                }
            }
        }
        assertTrue(aliceWrote, "alice's publish in team-a is in the audit log");
        assertTrue(ginaWrote, "gina's registration in G1 is in the audit log");
    }

    private String config(String query) throws Exception {
        HttpResponse<String> r = s.send("GET", "/nacos/v1/cs/configs?" + query, null, s.admin());
        assertEquals(200, r.statusCode(), query + ": " + r.body());
        return r.body();
    }

    private List<String> hosts(String query) throws Exception {
        HttpResponse<String> r = s.send("GET", "/nacos/v1/ns/instance/list?" + query, null, s.admin());
        assertEquals(200, r.statusCode(), r.body());
        List<String> out = new ArrayList<>();
        for (JsonNode h : AuthServer.JSON.readTree(r.body()).path("hosts")) {
            out.add(h.path("ip").asText() + ":" + h.path("port").asInt() + ":"
                    + h.path("weight").asDouble());
        }
        return out;
    }

    /** Sends the probe with the variant's fields as {@code user}, and checks its answer against the variant's expectation. */
    private void check(Probe p, Variant v, Map<String, String> user, String namespace) throws Exception {
        int status;
        String body;
        if (p.grpc()) {
            RawGrpcClient.Message m = grpc.request(RawGrpcClient.payload(
                    p.operation(),
                    grpcBody(p, v),
                    Map.of("accessToken", user.get("Authorization").substring(7))));
            status = m.body().path("errorCode").asInt(0);
            status = status == 0 ? 200 : status;
            body = m.body().toString();
        } else {
            String method = p.operation().substring(0, p.operation().indexOf(' '));
            String path = p.operation().substring(p.operation().indexOf(' ') + 1);
            String query = httpQuery(p, v);
            if (p.kind() == Kind.PATH) {
                path = path.replace("{namespaceId}", v.fields().get("namespaceId"))
                        .replace("{service}", SERVICE);
                query = "";
            }
            boolean form = method.equals("POST") || method.equals("PUT");
            HttpResponse<String> r = form
                    ? s.send(
                            method,
                            path + "?" + (p.kind() == Kind.TRANSFER ? query : ""),
                            p.kind() == Kind.TRANSFER ? null : query,
                            user)
                    : s.send(method, path + "?" + query, null, user);
            status = r.statusCode();
            body = r.body();
        }
        synchronized (answered) {
            answered.add(body);
        }
        String what = p + " " + v.name() + " answered " + status + ": " + body;
        assertNotEquals(500, status, what);
        switch (v.expect()) {
            case SERVED -> assertTrue(status != 403 && status != 401, what);
            case FORBIDDEN -> assertEquals(403, status, what);
            case CONFLICT -> {
                assertEquals(400, status, what);
                for (String name : v.fields().keySet()) {
                    assertTrue(body.contains("'" + name + "'"), "the refusal names '" + name + "': " + what);
                }
            }
        }
    }

    /** The probe's fixed fields, the variant's, and the defaults a probe of its kind needs (a group, a service name). */
    private static String httpQuery(Probe p, Variant v) {
        Map<String, String> fields = new LinkedHashMap<>(v.fields());
        if (p.kind() == Kind.LISTENED) {
            String tenant = fields.get("tenant");
            String group = fields.getOrDefault("group", "DEFAULT_GROUP");
            String entry = "db.password\u0002" + group + "\u0002\u0002" + (tenant == null ? "" : tenant) + "\u0001";
            if (tenant == null) {
                entry = "db.password\u0002" + group + "\u0002\u0001";
            }
            return "Listening-Configs=" + URLEncoder.encode(entry, StandardCharsets.UTF_8);
        }
        if ((p.kind() == Kind.CONFIG) && !fields.containsKey("group") && !fields.containsKey("groupName")) {
            fields.put("group", "DEFAULT_GROUP");
        }
        if (p.kind() == Kind.SERVICE) {
            fields.putIfAbsent("serviceName", SERVICE);
        }
        StringBuilder q = new StringBuilder(p.fixed());
        fields.forEach((k, val) -> q.append(q.length() == 0 ? "" : "&")
                .append(k)
                .append('=')
                .append(URLEncoder.encode(val, StandardCharsets.UTF_8)));
        return q.toString();
    }

    private static String grpcBody(Probe p, Variant v) throws Exception {
        ObjectNode body = p.fixed().isEmpty()
                ? AuthServer.JSON.createObjectNode()
                : (ObjectNode) AuthServer.JSON.readTree(p.fixed());
        Map<String, String> fields = new LinkedHashMap<>(v.fields());
        if (p.kind() == Kind.LISTENED) {
            ObjectNode entry = AuthServer.JSON
                    .createObjectNode()
                    .put("dataId", "db.password")
                    .put("md5", "");
            fields.putIfAbsent("group", "DEFAULT_GROUP");
            fields.forEach(entry::put);
            body.put("listen", true).putArray("configListenContexts").add(entry);
            return body.toString();
        }
        if (p.kind() == Kind.CONFIG && !fields.containsKey("group") && !fields.containsKey("groupName")) {
            fields.put("group", "DEFAULT_GROUP");
        }
        if (p.kind() == Kind.SERVICE) {
            fields.putIfAbsent("serviceName", SERVICE);
        }
        fields.forEach(body::put);
        return body.toString();
    }
}
