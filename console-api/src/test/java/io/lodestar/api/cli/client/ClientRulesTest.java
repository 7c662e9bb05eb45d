package io.lodestar.api.cli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client's rules that need no server: exit codes, who logs in, and what a --server names. */
class ClientRulesTest {
    @Test
    void statusesMapToTheDocumentedExitCodes() {
        assertEquals(ExitCodes.OK, ExitCodes.forStatus(200));
        assertEquals(ExitCodes.REFUSED, ExitCodes.forStatus(401));
        assertEquals(ExitCodes.REFUSED, ExitCodes.forStatus(403));
        assertEquals(ExitCodes.NOT_FOUND, ExitCodes.forStatus(404));
        for (int failed : new int[] {400, 409, 413, 429, 500, 503, 504}) {
            assertEquals(ExitCodes.FAILED, ExitCodes.forStatus(failed), "status " + failed);
        }
        assertEquals(2, ExitCodes.USAGE, "picocli's own code for a usage error");
    }

    @Test
    void aUsernameLogsInAndOtherwiseATokenWinsOverAPassword() {
        Map<String, String> both = Map.of(Credentials.TOKEN_ENV, "t", Credentials.PASSWORD_ENV, "p");
        Credentials named = Credentials.of("alice", null, both);
        assertTrue(named.logsIn());
        assertEquals("alice", named.username);
        assertEquals("p", new String(named.password()));

        Credentials token = Credentials.of(null, null, both);
        assertFalse(token.logsIn());
        assertEquals("t", token.token);

        Credentials password = Credentials.of(null, null, Map.of(Credentials.PASSWORD_ENV, "p"));
        assertEquals(Credentials.DEFAULT_USER, password.username);

        Credentials nobody = Credentials.of(null, null, Map.of(Credentials.TOKEN_ENV, " "));
        assertFalse(nobody.logsIn());
        assertNull(nobody.token);
    }

    @Test
    void anotherServersUserTakesItsPasswordFromItsOwnVariableNeverLodestars() {
        Map<String, String> env =
                Map.of(Credentials.PASSWORD_ENV, "target", Credentials.TOKEN_ENV, "t", "FROM", "source");
        Credentials source = Credentials.forUser("nacos", "FROM", "at the source", env);
        assertTrue(source.logsIn());
        assertNull(source.token);
        assertEquals("source", new String(source.password()));

        assertFalse(Credentials.forUser(null, "FROM", "at the source", env).logsIn(), "no user: no login");
        assertNull(Credentials.forUser(null, "FROM", "at the source", env).token, "never Lodestar's token");
        CommandFailure none = assertThrows(
                CommandFailure.class,
                () -> Credentials.forUser("nacos", "FROM", "at the source", Map.of())
                        .password());
        assertTrue(none.getMessage().contains("set FROM"), none.getMessage());
    }

    @Test
    void aServerIsHostAndPortWithAnOptionalScheme() {
        assertEquals(URI.create("http://127.0.0.1:8848"), LodestarClient.base("127.0.0.1:8848", false));
        assertEquals(URI.create("https://node1:8848"), LodestarClient.base("node1:8848", true));
        assertEquals(URI.create("https://node1:443"), LodestarClient.base("https://node1:443/", false));
        CommandFailure bad = assertThrows(CommandFailure.class, () -> LodestarClient.base("node1", false));
        assertEquals(ExitCodes.USAGE, bad.exitCode());
        assertTrue(bad.getMessage().contains("--server"), bad.getMessage());
    }
}
