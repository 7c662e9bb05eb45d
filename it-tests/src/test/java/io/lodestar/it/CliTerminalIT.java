package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.kv.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The command line where a person sees it, in a real terminal ({@link Tmux}; skipped without
 * tmux): the password prompt does not echo, and {@code config watch} prints every change, those
 * made while its connection was down included, across a cut link and a server killed and restarted.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class CliTerminalIT {
    private static final Duration SHOWN = Duration.ofSeconds(30);

    @RegisterExtension
    final LodestarCluster cluster = new LodestarCluster();

    private static List<String> lodestar(String... args) {
        return CliProcess.command(args);
    }

    @Test
    void thePasswordPromptDoesNotEchoAndTheCommandThenRuns() throws Exception {
        ServerProcess server = cluster.standalone("prompt", "--auth", "on").start();
        server.awaitReady();
        Path file = server.dataDir.resolve("initial-admin-password");
        Await.until(SHOWN, "the admin's password file", () -> Files.exists(file));
        String password = Files.readString(file).trim();
        try (Tmux terminal = Tmux.open()) {
            terminal.run(lodestar("namespace", "list", "--server", server.httpAddress(), "--username", "nacos"));
            terminal.await(SHOWN, "Password for nacos:");
            terminal.type(password);
            terminal.keys("Enter");
            terminal.await(SHOWN, "exit=0");
            String screen = terminal.screen();
            assertTrue(screen.contains("Public Namespace"), screen);
            assertFalse(screen.contains(password), "the password was echoed:\n" + screen);

            terminal.run(lodestar("namespace", "list", "--server", server.httpAddress(), "--username", "nacos"));
            Await.until(
                    SHOWN,
                    "a second prompt",
                    () -> terminal.screen().split("Password for nacos:", -1).length == 3,
                    terminal::screen);
            terminal.type("not-" + password);
            terminal.keys("Enter");
            terminal.await(SHOWN, "exit=4");
            assertTrue(terminal.screen().contains("cannot log in as nacos"), terminal.screen());
        }
    }

    @Test
    void configWatchPrintsEveryChangeIncludingThoseMadeWhileItWasDisconnected() throws Exception {
        ServerProcess server = cluster.startStandalone("watched");
        try (TcpProxy link = TcpProxy.to(server.httpPort);
                Tmux terminal = Tmux.open()) {
            terminal.run(lodestar("config", "watch", "--server", link.address(), "--data-id", "app.yaml,other"));
            terminal.await(SHOWN, "watching 2 config(s) on " + link.address());

            List<String> seen = new ArrayList<>();
            for (String content : List.of("one", "two")) {
                publish(server, content);
                seen.add(ConfigHistoryIT.md5(content));
                terminal.await(SHOWN, "DEFAULT_GROUP/app.yaml  published md5=" + seen.get(seen.size() - 1));
            }

            publish(server, "other", "x");
            terminal.await(SHOWN, "DEFAULT_GROUP/other  published md5=" + ConfigHistoryIT.md5("x"));

            link.cut();
            terminal.await(SHOWN, "disconnected from " + link.address());
            publish(server, "made while cut off");
            assertEquals(
                    200,
                    Http.delete(server.httpAddress(), "/nacos/v1/cs/configs?dataId=other&group=DEFAULT_GROUP")
                            .status());
            link.heal();
            terminal.await(SHOWN, "published md5=" + ConfigHistoryIT.md5("made while cut off"));
            terminal.await(SHOWN, "DEFAULT_GROUP/other  deleted");
            assertTrue(terminal.screen().contains("reconnected to " + link.address() + "; resuming after revision"));

            cluster.kill(server);
            terminal.await(SHOWN, "reconnecting");
            server.start();
            server.awaitReady();
            publish(server, "after the restart");
            terminal.await(SHOWN, "published md5=" + ConfigHistoryIT.md5("after the restart"));

            String screen = terminal.screen();
            for (String md5 : seen) {
                assertEquals(1, screen.split("md5=" + md5, -1).length - 1, "each change printed once:\n" + screen);
            }
            terminal.keys("C-c");
            terminal.await(SHOWN, "exit=130");
        }
    }

    private static void publish(ServerProcess server, String content) throws Exception {
        publish(server, "app.yaml", content);
    }

    private static void publish(ServerProcess server, String dataId, String content) throws Exception {
        Http.Response r = Http.postForm(
                server.httpAddress(),
                "/nacos/v1/cs/configs",
                Http.params("dataId", dataId, "group", "DEFAULT_GROUP", "content", content));
        assertEquals(200, r.status(), r.body());
    }
}
