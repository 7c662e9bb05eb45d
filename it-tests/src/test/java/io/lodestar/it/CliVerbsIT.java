package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.kv.testing.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The operator verbs ({@code config}, {@code naming}, {@code namespace}, {@code user}) run as real
 * {@code java -jar lodestar.jar} processes against a real server with authentication on: what
 * they print, and the exit codes a script relies on (0 ok, 1 failed, 2 usage, 3 not found, 4
 * refused).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CliVerbsIT {
    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    @TempDir
    Path dir;

    /** The admin's environment: an unreachable server first (tried, then skipped), the server, the password. */
    private Map<String, String> admin;

    private ServerProcess serverWithAuth(String name) throws Exception {
        ServerProcess server = cluster.standalone(name, "--auth", "on").start();
        server.awaitReady();
        Path password = server.dataDir.resolve("initial-admin-password");
        Await.until(Duration.ofSeconds(30), "the admin's password file", () -> Files.exists(password));
        admin = new HashMap<>(Map.of(
                "LODESTAR_SERVER",
                "127.0.0.1:1," + server.httpAddress(),
                "LODESTAR_PASSWORD",
                Files.readString(password).trim()));
        return server;
    }

    /** Bob, logging in himself, publishes config d of namespace dev. */
    private static CliProcess.Run publishInDevAs(Map<String, String> bob, String content) throws Exception {
        return CliProcess.run(
                bob,
                "config",
                "publish",
                "--username",
                "bob",
                "--namespace",
                "dev",
                "--data-id",
                "d",
                "--content",
                content);
    }

    private CliProcess.Run lodestar(String... args) throws Exception {
        return CliProcess.run(admin, args);
    }

    private static Map<String, String> with(Map<String, String> env, String... kv) {
        Map<String, String> m = new HashMap<>(env);
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static CliProcess.Run expect(int exit, CliProcess.Run run) {
        assertEquals(exit, run.exit(), run.toString());
        return run;
    }

    @Test
    void configVerbsPublishReadListHistoryRollbackAndDeleteWithScriptableExitCodes() throws Exception {
        serverWithAuth("cli-config");
        // no newline at the end, a CR, non-ASCII: printed back exactly as published
        byte[] content =
                "first line\r\nzweite Zeile: ü €\n\ttabbed, no newline at the end".getBytes(StandardCharsets.UTF_8);
        Path file = Files.write(dir.resolve("app.yaml"), content);
        expect(0, lodestar("config", "publish", "--data-id", "app.yaml", "--file", file.toString(), "--type", "yaml"));
        assertArrayEquals(
                content,
                expect(0, lodestar("config", "get", "--data-id", "app.yaml")).stdout());

        CliProcess.Run missing = expect(3, lodestar("config", "get", "--data-id", "absent"));
        assertEquals(0, missing.stdout().length, missing.toString());
        assertTrue(missing.stderr().contains("config data not exist"), missing.toString());

        expect(0, lodestar("config", "publish", "--data-id", "app.yaml", "--content", "v2"));
        expect(0, lodestar("config", "publish", "--data-id", "other", "--group", "G2", "--content", "x"));
        String listed = expect(0, lodestar("config", "list")).out();
        assertTrue(listed.contains("app.yaml") && listed.contains("DEFAULT_GROUP") && listed.contains("G2"), listed);
        JsonNode onlyG2 = Http.JSON.readTree(expect(0, lodestar("config", "list", "--group", "G2", "--output", "json"))
                .stdout());
        assertEquals(1, onlyG2.size(), onlyG2.toString());
        assertEquals("other", onlyG2.get(0).get("dataId").asText());

        JsonNode history =
                Http.JSON.readTree(expect(0, lodestar("config", "history", "--data-id", "app.yaml", "--output", "json"))
                        .stdout());
        List<String> ops = new ArrayList<>();
        history.forEach(h -> ops.add(h.get("op").asText()));
        assertEquals(List.of("U", "I"), ops, history.toString());
        String inserted = history.get(1).get("id").asText();
        assertArrayEquals(
                content,
                expect(0, lodestar("config", "history", "--data-id", "app.yaml", "--id", inserted))
                        .stdout());
        expect(0, lodestar("config", "rollback", "--data-id", "app.yaml", "--to", inserted));
        assertArrayEquals(
                content,
                expect(0, lodestar("config", "get", "--data-id", "app.yaml")).stdout());
        // an unknown entry is the server's 400 naming nid: a failure, not a missing config
        expect(1, lodestar("config", "rollback", "--data-id", "app.yaml", "--to", "999999"));
        String table = expect(0, lodestar("config", "history", "--data-id", "app.yaml"))
                .out();
        assertTrue(table.lines().count() == 4 && table.contains("nacos"), "header and three changes:\n" + table);

        // a watch is a listener (on the push channel), and "who listens" shows it
        ProcessBuilder watch = new ProcessBuilder(CliProcess.command("config", "watch", "--data-id", "app.yaml"))
                .redirectOutput(dir.resolve("config-watch.out").toFile())
                .redirectError(dir.resolve("config-watch.err").toFile());
        watch.environment().keySet().removeIf(k -> k.startsWith("LODESTAR_"));
        watch.environment().putAll(admin);
        Process watching = watch.start();
        try {
            String[] listeners = {""};
            Await.until(
                    Duration.ofSeconds(30),
                    "the watch among the config's listeners",
                    () -> {
                        listeners[0] = expect(0, lodestar("config", "listeners", "--data-id", "app.yaml"))
                                .out();
                        return listeners[0].contains("push-channel");
                    },
                    () -> listeners[0] + read(dir.resolve("config-watch.err")));
        } finally {
            watching.destroyForcibly();
        }

        expect(0, lodestar("config", "delete", "--data-id", "app.yaml"));
        expect(3, lodestar("config", "get", "--data-id", "app.yaml"));
    }

    @Test
    void wrongPasswordsAndTokensExitFourAndBadUsageTwo() throws Exception {
        ServerProcess server = serverWithAuth("cli-refusals");
        expect(0, lodestar("config", "publish", "--data-id", "a", "--content", "x"));

        Map<String, String> wrongPassword = with(admin, "LODESTAR_PASSWORD", "not-the-password");
        CliProcess.Run wrong = expect(4, CliProcess.run(wrongPassword, "config", "get", "--data-id", "a"));
        assertTrue(wrong.stderr().contains("cannot log in as nacos"), wrong.toString());
        Map<String, String> badToken = Map.of("LODESTAR_SERVER", server.httpAddress(), "LODESTAR_TOKEN", "forged");
        expect(4, CliProcess.run(badToken, "config", "get", "--data-id", "a"));
        CliProcess.Run anonymous =
                expect(4, CliProcess.run(Map.of("LODESTAR_SERVER", server.httpAddress()), "namespace", "list"));
        assertTrue(anonymous.stderr().contains("no access token"), anonymous.toString());
        // the token of a login works as LODESTAR_TOKEN, sent as a header
        String token = Http.JSON
                .readTree(Http.postForm(
                                server.httpAddress(),
                                "/nacos/v1/auth/users/login",
                                Http.params("username", "nacos", "password", admin.get("LODESTAR_PASSWORD")))
                        .body())
                .get("accessToken")
                .asText();
        Map<String, String> withToken = Map.of("LODESTAR_SERVER", server.httpAddress(), "LODESTAR_TOKEN", token);
        assertEquals(
                "x",
                expect(0, CliProcess.run(withToken, "config", "get", "--data-id", "a"))
                        .out());

        record Usage(List<String> args, String mentions) {}
        for (Usage u : List.of(
                new Usage(List.of("config"), "Missing required subcommand"),
                new Usage(List.of("config", "get"), "--data-id"),
                new Usage(List.of("config", "publish", "--data-id", "a"), "--content"),
                new Usage(List.of("config", "publish", "--data-id", "a", "--content", "x", "--file", "f"), "mutually"),
                new Usage(List.of("config", "get", "--data-id", "a", "--bogus"), "--bogus"),
                new Usage(List.of("config", "list", "--output", "yaml"), "--output"),
                new Usage(List.of("naming", "register", "--service", "s", "--ip", "1.2.3.4", "--port", "x"), "--port"),
                new Usage(List.of("user", "revoke", "bob", "--resource", "dev"), "--action"))) {
            CliProcess.Run r = expect(2, lodestar(u.args().toArray(String[]::new)));
            assertTrue(r.stderr().contains(u.mentions()), u.mentions() + " in " + r);
        }
        expect(2, CliProcess.run(Map.of(), "config", "get", "--data-id", "a", "--server", "no-port-here"));
    }

    @Test
    void namespacesInstancesAndAUsersGrantedAndRevokedRights() throws Exception {
        serverWithAuth("cli-admin");
        expect(0, lodestar("namespace", "create", "dev", "--name", "Development", "--description", "for tests"));
        expect(1, lodestar("namespace", "create", "dev"));
        String namespaces = expect(0, lodestar("namespace", "list")).out();
        assertTrue(namespaces.contains("public") && namespaces.contains("Development"), namespaces);

        expect(
                0,
                lodestar(
                        "naming",
                        "register",
                        "--namespace",
                        "dev",
                        "--service",
                        "orders",
                        "--ip",
                        "10.0.0.7",
                        "--port",
                        "8080",
                        "--metadata",
                        "zone=a"));
        JsonNode instances = Http.JSON.readTree(
                expect(0, lodestar("naming", "list", "--namespace", "dev", "--service", "orders", "--output", "json"))
                        .stdout());
        assertEquals(1, instances.size(), instances.toString());
        assertEquals("10.0.0.7", instances.get(0).get("ip").asText());
        assertEquals(8080, instances.get(0).get("port").asInt());
        assertEquals("a", instances.get(0).get("metadata").get("zone").asText());
        assertTrue(expect(0, lodestar("naming", "list", "--namespace", "dev"))
                .out()
                .contains("orders"));
        expect(
                0,
                lodestar(
                        "naming",
                        "deregister",
                        "--namespace",
                        "dev",
                        "--service",
                        "orders",
                        "--ip",
                        "10.0.0.7",
                        "--port",
                        "8080"));
        assertEquals(
                0,
                Http.JSON
                        .readTree(expect(
                                        0,
                                        lodestar(
                                                "naming",
                                                "list",
                                                "--namespace",
                                                "dev",
                                                "--service",
                                                "orders",
                                                "--output",
                                                "json"))
                                .stdout())
                        .size());

        Map<String, String> adding = with(admin, "LODESTAR_NEW_PASSWORD", "bob-secret-1");
        expect(0, CliProcess.run(adding, "user", "add", "bob"));
        expect(1, CliProcess.run(adding, "user", "add", "bob"));
        expect(0, lodestar("user", "grant", "bob", "--resource", "dev", "--action", "rw"));
        expect(0, lodestar("user", "grant", "bob", "--resource", "dev", "--action", "rw")); // again: no change

        Map<String, String> bob = with(admin, "LODESTAR_PASSWORD", "bob-secret-1");
        expect(0, publishInDevAs(bob, "bob's"));
        CliProcess.Run outside = expect(
                4, CliProcess.run(bob, "config", "publish", "--username", "bob", "--data-id", "d", "--content", "x"));
        assertTrue(outside.stderr().contains("'bob' may not write"), outside.toString());
        expect(
                4,
                CliProcess.run(
                        with(bob, "LODESTAR_NEW_PASSWORD", "eve-secret-1"), "user", "add", "eve", "--username", "bob"));

        expect(0, lodestar("user", "revoke", "bob", "--resource", "dev", "--action", "rw"));
        expect(3, lodestar("user", "revoke", "bob", "--resource", "dev", "--action", "rw"));
        expect(4, publishInDevAs(bob, "again"));
        expect(0, lodestar("user", "revoke", "bob"));

        Map<String, String> changing = with(admin, "LODESTAR_NEW_PASSWORD", "bob-secret-2");
        expect(0, CliProcess.run(changing, "user", "passwd", "bob"));
        expect(4, CliProcess.run(bob, "namespace", "list", "--username", "bob"));
        expect(
                0,
                CliProcess.run(
                        with(bob, "LODESTAR_PASSWORD", "bob-secret-2"), "namespace", "list", "--username", "bob"));
        expect(0, lodestar("user", "delete", "bob"));
        expect(3, lodestar("user", "delete", "bob"));

        expect(1, lodestar("namespace", "delete", "dev")); // still holds bob's config
        expect(0, lodestar("config", "delete", "--namespace", "dev", "--data-id", "d"));
        expect(0, lodestar("namespace", "delete", "dev"));
        expect(3, lodestar("namespace", "delete", "dev"));
    }

    @Test
    void namingWatchPrintsTheInstancesAgainWhenTheyChange() throws Exception {
        ServerProcess server = serverWithAuth("cli-naming-watch");
        Path printed = dir.resolve("watch.out");
        ProcessBuilder watch = new ProcessBuilder(CliProcess.command("naming", "watch", "--service", "payments"))
                .redirectOutput(printed.toFile())
                .redirectError(dir.resolve("watch.err").toFile());
        watch.environment().keySet().removeIf(k -> k.startsWith("LODESTAR_"));
        watch.environment().putAll(admin);
        Process p = watch.start();
        try {
            Await.until(
                    Duration.ofSeconds(30),
                    "the empty list first",
                    () -> Files.readString(printed).contains("DEFAULT_GROUP@@payments: 0 instance(s)"),
                    () -> read(printed));
            JsonNode subscribers = Http.JSON.readTree(expect(
                            0,
                            CliProcess.run(
                                    with(admin, "LODESTAR_SERVER", server.httpAddress()),
                                    "naming",
                                    "subscribers",
                                    "--service",
                                    "payments",
                                    "--output",
                                    "json"))
                    .stdout());
            assertEquals(1, subscribers.size(), subscribers.toString());
            assertEquals("udp-push", subscribers.get(0).get("protocol").asText(), "the watch's UDP subscription");
            expect(0, lodestar("naming", "register", "--service", "payments", "--ip", "10.1.1.1", "--port", "7000"));
            // pushed at once; the 10 s re-query would also show it, so allow a little more than that
            Await.until(
                    Duration.ofSeconds(15),
                    "the registered instance",
                    () -> Files.readString(printed).contains("10.1.1.1"),
                    () -> read(printed));
            expect(0, lodestar("naming", "deregister", "--service", "payments", "--ip", "10.1.1.1", "--port", "7000"));
            Await.until(
                    Duration.ofSeconds(15),
                    "the list empty again",
                    () -> Files.readString(printed).split("0 instance\\(s\\)", -1).length == 3,
                    () -> read(printed));
            assertTrue(p.isAlive(), read(dir.resolve("watch.err")));
        } finally {
            p.destroyForcibly();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    @Test
    void everyCommandHasHelpAndTheCompletionScriptCoversTheVerbs() throws Exception {
        for (List<String> command : List.of(
                List.of("config", "watch"),
                List.of("naming", "watch"),
                List.of("namespace", "create"),
                List.of("user", "grant"),
                List.of("cluster", "status"))) {
            List<String> args = new ArrayList<>(command);
            args.add("--help");
            CliProcess.Run help = expect(0, CliProcess.run(Map.of(), args.toArray(String[]::new)));
            assertTrue(help.out().contains("--server"), help.toString());
        }
        String script = expect(0, CliProcess.run(Map.of(), "completion")).out();
        for (String word : List.of("complete -F", "config", "publish", "--data-id", "naming", "transfer-leader")) {
            assertTrue(script.contains(word), word + " in the completion script");
        }
    }
}
