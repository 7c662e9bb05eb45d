package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lodestar migrate} between two real servers with authentication on: a source Lodestar
 * standing in for Nacos 2.x (it serves the same v1 API) and an empty target. The copy matches the
 * source field by field; a second run changes nothing; a change at the source is one update; a
 * dry run writes nothing.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class MigrateIT {
    private static final String CONFIGS = "/nacos/v1/cs/configs";
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path dir;

    private ServerProcess source;
    private ServerProcess target;
    private String sourceToken;
    private String targetToken;
    private Map<String, String> env;

    @Test
    void copiesEverythingFieldByFieldThenOnlyChangesAndADryRunWritesNothing() throws Exception {
        source = start("migrate-source");
        target = start("migrate-target");
        sourceToken = login(source);
        targetToken = login(target);
        env = new HashMap<>(Map.of(
                "LODESTAR_SERVER", target.httpAddress(),
                "LODESTAR_PASSWORD", adminPassword(target),
                "LODESTAR_FROM_PASSWORD", adminPassword(source)));
        fillSource();

        CliProcess.Run first = migrate();
        assertEquals(0, first.exit(), first.toString());
        assertTrue(first.out().contains("created config public/DEFAULT_GROUP/app.yaml"), first.toString());
        assertTrue(first.stderr().contains("Nacos v1 API"), first.toString());

        assertNamespacesCopied();
        for (String[] key : List.of(
                new String[] {"", "DEFAULT_GROUP", "app.yaml"},
                new String[] {"dev", "G1", "db.properties"},
                new String[] {"prod", "G2", "flags.json"})) {
            assertConfigCopied(key[0], key[1], key[2]);
        }
        JsonNode beta = data(get(target, CONFIGS, "beta", "true", "dataId", "app.yaml", "group", "DEFAULT_GROUP"));
        assertEquals("gray content", beta.path("content").asText(), beta.toString());
        assertEquals("10.0.0.1,10.0.0.2", beta.path("betaIps").asText(), beta.toString());
        assertServiceCopied("", "DEFAULT_GROUP", "orders");
        assertServiceCopied("dev", "SVC", "pay");
        assertEquals(
                0,
                get(target, "/nacos/v1/ns/instance/list", "serviceName", "heartbeats")
                        .path("hosts")
                        .size(),
                "ephemeral instances are not copied");
        assertUsersCopied();

        JsonNode second = json(migrate("--output", "json"));
        assertCounts(second, Map.of());
        assertEquals(0, second.path("changes").size(), second.toString());

        publish(source, "", "DEFAULT_GROUP", "app.yaml", "port: 9090", "yaml");
        JsonNode third = json(migrate("--output", "json"));
        assertCounts(third, Map.of("configs", "updated"));
        assertEquals(
                "port: 9090",
                get(target, CONFIGS, "show", "all", "dataId", "app.yaml", "group", "DEFAULT_GROUP")
                        .path("content")
                        .asText());

        // published again without its description: both fields are named as differing
        publish(source, "dev", "G1", "db.properties", "url=changed", "properties");
        createNamespace(source, "staging");
        long before = revision(target);
        CliProcess.Run dry = migrate("--dry-run");
        assertEquals(0, dry.exit(), dry.toString());
        assertTrue(dry.out().contains("would update config dev/G1/db.properties (content, desc)"), dry.toString());
        assertTrue(dry.out().contains("would create namespace staging"), dry.toString());
        assertEquals(before, revision(target), "a dry run writes nothing:\n" + dry);
        assertEquals(
                "url=jdbc:x",
                get(target, CONFIGS, "show", "all", "dataId", "db.properties", "group", "G1", "tenant", "dev")
                        .path("content")
                        .asText());

        // a user the target lacks, with nowhere to put a generated password: that item fails, the
        // rest is copied, and the exit code says so
        ok(send(source, "POST", "/nacos/v1/auth/users", Map.of(), "username", "carol", "password", "carol-secret-1"));
        CliProcess.Run failing = migrate(false);
        assertEquals(1, failing.exit(), failing.toString());
        assertTrue(
                failing.out().contains("failed user carol: its password cannot be read from the source"),
                failing.toString());
        assertTrue(failing.out().contains("created namespace staging"), failing.toString());
        assertTrue(failing.out().matches("(?s).*\\nusers +0 +0 +2 +1\\n.*"), failing.toString());
        CliProcess.Run unknown = CliProcess.run(
                env,
                "migrate",
                "--from",
                source.httpAddress(),
                "--from-username",
                "nacos",
                "--from-namespace",
                "nope",
                "--dry-run");
        assertEquals(1, unknown.exit(), unknown.toString());
        assertTrue(
                unknown.out().contains("failed namespace nope: the source has no such namespace"), unknown.toString());
        assertEquals(
                "url=changed",
                get(target, CONFIGS, "show", "all", "dataId", "db.properties", "group", "G1", "tenant", "dev")
                        .path("content")
                        .asText());
    }

    /** Bad command lines: each a usage error (2) naming what is wrong, or (unreachable) a failure (1). */
    @Test
    void badCommandLinesAreRefusedNamingTheOption() throws Exception {
        record Case(List<String> args, int exit, String message) {}
        List<Case> cases = List.of(
                new Case(List.of("migrate"), 2, "--from"),
                new Case(List.of("migrate", "--from", "ftp://nacos:21"), 2, "--from: 'ftp://nacos:21'"),
                new Case(List.of("migrate", "--from", "http://nacos:8848/other"), 2, "--from: "),
                new Case(
                        List.of("migrate", "--from", "127.0.0.1:1", "--from-namespace", "dev", "--from-namespace-all"),
                        2,
                        "--from-namespace and --from-namespace-all exclude each other"),
                new Case(List.of("migrate", "--from", "127.0.0.1:1", "--dry-run=maybe"), 2, "--dry-run"),
                new Case(List.of("migrate", "--from", "127.0.0.1:1"), 1, "cannot reach any server: 127.0.0.1:1"));
        for (Case c : cases) {
            CliProcess.Run run = CliProcess.run(Map.of(), c.args().toArray(String[]::new));
            assertEquals(c.exit(), run.exit(), c + "\n" + run);
            assertTrue(run.stderr().contains(c.message()), c + "\n" + run);
        }
    }

    private ServerProcess start(String name) throws Exception {
        ServerProcess p = cluster.standalone(name, "--auth", "on").start();
        p.awaitReady();
        Path password = p.dataDir.resolve("initial-admin-password");
        Await.until(Duration.ofSeconds(30), "the admin's password file", () -> Files.exists(password));
        return p;
    }

    private static String adminPassword(ServerProcess p) throws Exception {
        return Files.readString(p.dataDir.resolve("initial-admin-password")).trim();
    }

    private static String login(ServerProcess p) throws Exception {
        return login(p, "nacos", adminPassword(p)).path("accessToken").asText();
    }

    private static JsonNode login(ServerProcess p, String user, String password) throws Exception {
        Http.Response r = Http.postForm(
                p.httpAddress(), "/nacos/v1/auth/users/login", Http.params("username", user, "password", password));
        assertEquals(200, r.status(), r.body());
        return Http.JSON.readTree(r.body());
    }

    private CliProcess.Run migrate(String... extra) throws Exception {
        return migrate(true, extra);
    }

    private CliProcess.Run migrate(boolean passwordsFile, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "migrate",
                "--from",
                "http://" + source.httpAddress() + "/nacos",
                "--from-username",
                "nacos",
                "--from-namespace-all",
                "--from-group",
                "SVC"));
        if (passwordsFile) {
            args.addAll(List.of("--new-passwords-file", dir.resolve("passwords").toString()));
        }
        args.addAll(List.of(extra));
        return CliProcess.run(env, args.toArray(String[]::new));
    }

    private static JsonNode json(CliProcess.Run run) throws Exception {
        assertEquals(0, run.exit(), run.toString());
        return Http.JSON.readTree(run.stdout());
    }

    /** Every kind's counts are 0 but unchanged, except {@code changed}: kind to the one outcome counted once. */
    private static void assertCounts(JsonNode report, Map<String, String> changed) {
        for (JsonNode row : report.path("summary")) {
            String kind = row.path("kind").asText();
            for (String outcome : List.of("created", "updated", "failed")) {
                int expected = outcome.equals(changed.get(kind)) ? 1 : 0;
                assertEquals(expected, row.path(outcome).asInt(), kind + " " + outcome + " in " + report);
            }
        }
        assertEquals(0, report.path("failures").size(), report.toString());
    }

    private void fillSource() throws Exception {
        createNamespace(source, "dev", "Development", "the developers' namespace");
        createNamespace(source, "prod", "Production", "");
        ok(send(
                source,
                "POST",
                CONFIGS,
                Map.of(),
                "dataId",
                "app.yaml",
                "group",
                "DEFAULT_GROUP",
                "content",
                "port: 8080",
                "type",
                "yaml",
                "desc",
                "the shop's settings",
                "config_tags",
                "shop,edge",
                "appName",
                "shop"));
        ok(send(
                source,
                "POST",
                CONFIGS,
                Map.of("betaIps", "10.0.0.1,10.0.0.2"),
                "dataId",
                "app.yaml",
                "group",
                "DEFAULT_GROUP",
                "content",
                "gray content"));
        ok(send(
                source,
                "POST",
                CONFIGS,
                Map.of(),
                "dataId",
                "db.properties",
                "group",
                "G1",
                "tenant",
                "dev",
                "content",
                "url=jdbc:x",
                "type",
                "properties",
                "desc",
                "database"));
        publish(source, "prod", "G2", "flags.json", "{\"new\":true}", "json");

        ok(send(
                source,
                "POST",
                "/nacos/v1/ns/service",
                Map.of(),
                "serviceName",
                "orders",
                "protectThreshold",
                "0.5",
                "metadata",
                "{\"team\":\"shop\"}"));
        registerPersistent("", "DEFAULT_GROUP", "orders", "A", "10.0.0.1", "8080", "2.0", "{\"zone\":\"z1\"}");
        registerPersistent("", "DEFAULT_GROUP", "orders", "A", "10.0.0.2", "8080", "1.0", "{}");
        registerPersistent("", "DEFAULT_GROUP", "orders", "B", "10.0.0.3", "9090", "1.0", "{\"zone\":\"z2\"}");
        ok(send(
                source,
                "PUT",
                "/nacos/v1/ns/cluster",
                Map.of(),
                "serviceName",
                "orders",
                "clusterName",
                "A",
                "healthChecker",
                "{\"type\":\"HTTP\",\"path\":\"/health\",\"expectedResponseCode\":\"200\"}",
                "checkPort",
                "8081",
                "useInstancePort4Check",
                "false"));
        ok(send(
                source,
                "PUT",
                "/nacos/v1/ns/cluster",
                Map.of(),
                "serviceName",
                "orders",
                "clusterName",
                "B",
                "healthChecker",
                "{\"type\":\"NONE\"}"));
        registerPersistent("dev", "SVC", "pay", "DEFAULT", "10.0.1.1", "7000", "1.0", "{}");
        ok(send(
                source,
                "POST",
                "/nacos/v1/ns/instance",
                Map.of(),
                "serviceName",
                "heartbeats",
                "ip",
                "10.0.2.1",
                "port",
                "80",
                "ephemeral",
                "true"));

        ok(send(source, "POST", "/nacos/v1/auth/users", Map.of(), "username", "bob", "password", "bob-secret-1"));
        ok(send(source, "POST", "/nacos/v1/auth/roles", Map.of(), "role", "developers", "username", "bob"));
        ok(send(
                source,
                "POST",
                "/nacos/v1/auth/permissions",
                Map.of(),
                "role",
                "developers",
                "resource",
                "dev",
                "action",
                "rw"));
    }

    private void registerPersistent(
            String ns,
            String group,
            String service,
            String cluster,
            String ip,
            String port,
            String weight,
            String metadata)
            throws Exception {
        ok(send(
                source,
                "POST",
                "/nacos/v1/ns/instance",
                Map.of(),
                "namespaceId",
                ns,
                "groupName",
                group,
                "serviceName",
                service,
                "clusterName",
                cluster,
                "ip",
                ip,
                "port",
                port,
                "weight",
                weight,
                "metadata",
                metadata,
                "ephemeral",
                "false"));
    }

    private void publish(ServerProcess p, String ns, String group, String dataId, String content, String type)
            throws Exception {
        ok(send(
                p, "POST", CONFIGS, Map.of(), "dataId", dataId, "group", group, "tenant", ns, "content", content,
                "type", type));
    }

    private void createNamespace(ServerProcess p, String id, String... nameAndDesc) throws Exception {
        ok(send(
                p,
                "POST",
                "/nacos/v1/console/namespaces",
                Map.of(),
                "customNamespaceId",
                id,
                "namespaceName",
                nameAndDesc.length > 0 ? nameAndDesc[0] : id,
                "namespaceDesc",
                nameAndDesc.length > 1 ? nameAndDesc[1] : ""));
    }

    private void assertNamespacesCopied() throws Exception {
        Map<String, JsonNode> there = new HashMap<>();
        get(target, "/nacos/v1/console/namespaces")
                .path("data")
                .forEach(n -> there.put(n.path("namespace").asText(), n));
        for (JsonNode n : get(source, "/nacos/v1/console/namespaces").path("data")) {
            JsonNode copy = there.get(n.path("namespace").asText());
            assertTrue(copy != null, "namespace " + n + " missing at the target");
            for (String field : List.of("namespaceShowName", "namespaceDesc", "configCount")) {
                assertEquals(n.path(field), copy.path(field), field + " of " + n);
            }
        }
    }

    private void assertConfigCopied(String ns, String group, String dataId) throws Exception {
        String[] q = {"show", "all", "dataId", dataId, "group", group, "tenant", ns};
        JsonNode from = get(source, CONFIGS, q);
        JsonNode to = get(target, CONFIGS, q);
        for (String field : List.of("content", "md5", "type", "desc", "configTags", "appName")) {
            assertEquals(from.path(field), to.path(field), field + " of " + dataId + ": " + from + " vs " + to);
        }
    }

    private void assertServiceCopied(String ns, String group, String service) throws Exception {
        String[] q = {"serviceName", service, "groupName", group, "namespaceId", ns};
        JsonNode from = get(source, "/nacos/v1/ns/service", q);
        JsonNode to = get(target, "/nacos/v1/ns/service", q);
        assertEquals(from.path("protectThreshold"), to.path("protectThreshold"), service);
        assertEquals(from.path("metadata"), to.path("metadata"), service);
        assertEquals(from.path("clusters").size(), to.path("clusters").size(), from + " vs " + to);
        for (int i = 0; i < from.path("clusters").size(); i++) {
            JsonNode a = from.path("clusters").get(i);
            JsonNode b = to.path("clusters").get(i);
            assertEquals(a.path("name"), b.path("name"));
            assertEquals(a.path("healthChecker"), b.path("healthChecker"), service + " " + a.path("name"));
            assertEquals(a.path("instanceCount"), b.path("instanceCount"), service + " " + a.path("name"));
        }
        List<String> fromHosts = hosts(source, q);
        assertFalse(fromHosts.isEmpty());
        assertEquals(fromHosts, hosts(target, q));
    }

    /** The instances as the console lists them (sorted), the fields a copy must keep. */
    private List<String> hosts(ServerProcess p, String[] q) throws Exception {
        List<String> hosts = new ArrayList<>();
        for (JsonNode h : get(p, "/nacos/v1/ns/catalog/instances", q).path("list")) {
            hosts.add(h.path("clusterName").asText() + " " + h.path("ip").asText() + ":"
                    + h.path("port").asInt()
                    + " weight=" + h.path("weight").asDouble() + " enabled="
                    + h.path("enabled").asBoolean()
                    + " ephemeral=" + h.path("ephemeral").asBoolean() + " metadata=" + h.path("metadata"));
        }
        return hosts;
    }

    private void assertUsersCopied() throws Exception {
        Path file = dir.resolve("passwords");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), lines.toString());
        String[] bob = lines.get(0).split(" ");
        assertEquals("bob", bob[0]);
        login(target, "bob", bob[1]);
        JsonNode roles = get(target, "/nacos/v1/auth/roles", "username", "bob");
        assertEquals("developers", roles.path("pageItems").get(0).path("role").asText(), roles.toString());
        JsonNode permissions = get(target, "/nacos/v1/auth/permissions", "role", "developers");
        assertEquals(1, permissions.path("pageItems").size(), permissions.toString());
        assertEquals(
                "dev", permissions.path("pageItems").get(0).path("resource").asText());
        assertEquals("rw", permissions.path("pageItems").get(0).path("action").asText());
    }

    private long revision(ServerProcess p) throws Exception {
        return get(p, "/lodestar/v1/cluster").path("revision").asLong();
    }

    private static JsonNode data(JsonNode result) {
        return result.path("data");
    }

    private JsonNode get(ServerProcess p, String path, String... query) throws Exception {
        Map<String, String> q = Http.params(query);
        q.put("accessToken", p == source ? sourceToken : targetToken);
        Http.Response r = Http.get(p.httpAddress(), path + "?" + Http.query(q));
        assertEquals(200, r.status(), path + ": " + r.body());
        return Http.JSON.readTree(r.body());
    }

    private HttpResponse<String> send(
            ServerProcess p, String method, String path, Map<String, String> headers, String... form) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + p.httpAddress() + path))
                .timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + (p == source ? sourceToken : targetToken))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .method(method, HttpRequest.BodyPublishers.ofString(Http.query(Http.params(form))));
        headers.forEach(b::header);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void ok(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.request().uri() + ": " + r.body());
    }
}
