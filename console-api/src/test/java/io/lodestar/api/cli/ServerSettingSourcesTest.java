package io.lodestar.api.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.api.limits.Limit;
import io.lodestar.api.limits.Limits;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * How {@code lodestar server} takes its settings from flags, {@code LODESTAR_*} variables and the
 * settings file: in that order of precedence, every refusal exit 2 naming where the bad setting is,
 * and secrets masked in what the start-up log says.
 */
class ServerSettingSourcesTest {
    @TempDir
    Path dir;

    /** A parsed command and its command line, the environment and default file given. */
    private record Parsed(ServerCommand command, CommandLine cli) {
        List<String> summary() {
            return command.sources().summary(command.spec, cli.getParseResult());
        }
    }

    private static CommandLine commandLine(ServerCommand command, Map<String, String> env, Path defaultFile) {
        CommandLine cli = new CommandLine(command);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setDefaultValueProvider(new ServerSettingSources(env, defaultFile));
        return cli;
    }

    private static Parsed parse(Map<String, String> env, Path defaultFile, String... args) {
        ServerCommand command = new ServerCommand();
        CommandLine cli = commandLine(command, env, defaultFile);
        cli.parseArgs(args);
        command.sources().load(command.spec);
        return new Parsed(command, cli);
    }

    /** Runs the command as {@code lodestar server} would, for settings it refuses: the exit code and stderr. */
    private static String refusal(Map<String, String> env, Path defaultFile, String... args) {
        ServerCommand command = new ServerCommand();
        CommandLine cli = commandLine(command, env, defaultFile);
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        assertEquals(CommandLine.ExitCode.USAGE, code, err.toString());
        return err.toString().lines().findFirst().orElse("");
    }

    private Path file(String text) throws Exception {
        Path f = dir.resolve("lodestar.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void aFlagBeatsTheEnvironmentWhichBeatsTheFileWhichBeatsTheDefault() throws Exception {
        Path f = file("port = 1001\nraft-port = 1002\ndns-port = 1003\nauth = off\n");
        Parsed p = parse(
                Map.of("LODESTAR_PORT", "2001", "LODESTAR_RAFT_PORT", "2002"),
                null,
                "--config",
                f.toString(),
                "--port",
                "3001");
        assertEquals(3001, p.command().port, "flag over environment and file");
        assertEquals(2002, p.command().raftPort, "environment over file");
        assertEquals(1003, p.command().dnsPort, "file over default");
        assertEquals(ServerCommand.Switch.off, p.command().auth, "an enum from the file");
        assertEquals("./data", p.command().dataDir.toString(), "default where nothing sets it");
    }

    @Test
    void aFlagTurnsOffASwitchTheFileTurnedOn() throws Exception {
        Path f = file("peer-client-cert-auth = true\n");
        assertTrue(parse(Map.of(), null, "--config", f.toString()).command().peerTls.clientCertAuth);
        assertFalse(parse(Map.of(), null, "--config", f.toString(), "--peer-client-cert-auth=false")
                .command()
                .peerTls
                .clientCertAuth);
        assertTrue(parse(Map.of(), null, "--peer-client-cert-auth").command().peerTls.clientCertAuth);
    }

    @Test
    void limitsMergeOneByOneWithTheSamePrecedence() throws Exception {
        Path f = file("http.body-bytes = 1KiB\ngrpc.connections = 7\nlongpoll.held = 9\n");
        Parsed p = parse(
                Map.of("LODESTAR_LIMIT_GRPC_CONNECTIONS", "8", "LODESTAR_LIMIT_LONGPOLL_HELD", "10"),
                null,
                "--config",
                f.toString(),
                "--limit",
                "longpoll.held=11");
        Limits limits = p.command().settings().limits();
        assertEquals(1024, limits.get(Limit.HTTP_BODY_BYTES), "file");
        assertEquals(8, limits.get(Limit.GRPC_CONNECTIONS), "environment over file");
        assertEquals(11, limits.get(Limit.LONGPOLL_HELD), "flag over environment");
        assertEquals(Limit.UDP_SUBSCRIBERS.defaultValue(), limits.get(Limit.UDP_SUBSCRIBERS), "default");
    }

    @Test
    void theDefaultFileIsReadWhenPresentAndMayBeMissing() throws Exception {
        Path f = file("port = 1001\n");
        assertEquals(1001, parse(Map.of(), f).command().port);
        Parsed none = parse(Map.of(), dir.resolve("absent.properties"));
        assertEquals(8848, none.command().port);
        assertTrue(none.summary().get(0).contains("none"), none.summary().get(0));
    }

    @Test
    void lodestarConfigNamesTheFileAndTheFlagBeatsIt() throws Exception {
        Path f = file("port = 1001\n");
        Path other = dir.resolve("other.properties");
        Files.writeString(other, "port = 1002\n");
        assertEquals(1001, parse(Map.of("LODESTAR_CONFIG", f.toString()), null).command().port);
        assertEquals(
                1002,
                parse(Map.of("LODESTAR_CONFIG", f.toString()), null, "--config", other.toString())
                        .command()
                        .port);
    }

    @Test
    void aMissingNamedFileIsRefused() {
        String missing = dir.resolve("nope.properties").toString();
        assertTrue(refusal(Map.of(), null, "--config", missing).contains(missing));
        assertTrue(refusal(Map.of("LODESTAR_CONFIG", missing), null).contains("LODESTAR_CONFIG"));
    }

    @Test
    void anUnknownKeyIsRefusedNamingTheFileLineAndKey() throws Exception {
        Path f = file("# a comment\nport = 1001\n\nprot = 1002\n");
        String error = refusal(Map.of(), null, "--config", f.toString());
        assertTrue(error.contains(f.toString() + " line 4: prot"), error);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "port = eighty | line 2: port",
                "snapshot-entries = 1e6 | line 2: snapshot-entries",
                "disk-reserve = 1GB | line 2: disk-reserve",
                "auth = maybe | line 2: auth",
                "peer-client-cert-auth = yes | line 2: peer-client-cert-auth",
                "http.body-bytes = lots | line 2: http.body-bytes",
                "grpc.connections = 2KiB | line 2: grpc.connections",
                "data-dir = | line 2: data-dir",
                "limit = http.body-bytes=1 | line 2: limit",
                "cluster-secret = 0123456789abcdef | line 2: cluster-secret",
                "force-new-cluster = true | line 2: force-new-cluster: not settable in the file: a recovery for one start",
                "port = 70000 | --port must be between 1 and 65535, got 70000 (from ",
            })
    void aMalformedValueIsRefusedNamingTheFileLineAndKey(String entry, String expected) throws Exception {
        Path f = file("# first line\n" + entry + "\n");
        String error = refusal(Map.of(), null, "--config", f.toString());
        assertTrue(error.contains(expected), error);
        assertTrue(error.contains(f.toString()), error);
    }

    @Test
    void aKeyGivenTwiceIsRefused() throws Exception {
        Path f = file("port = 1\nport = 2\n");
        String error = refusal(Map.of(), null, "--config", f.toString());
        assertTrue(error.contains("line 2: port is set again (first on line 1)"), error);
    }

    @Test
    void aContinuedValueCountsItsLines() throws Exception {
        Path f = file("peers = 127.0.0.1:7848,\\\n    127.0.0.2:7848\nnope = 1\n");
        String error = refusal(Map.of(), null, "--config", f.toString());
        assertTrue(error.contains("line 3: nope"), error);
    }

    @Test
    void anUnknownLodestarVariableIsRefusedAndTheLaunchersAreLetBe() {
        String error = refusal(Map.of("LODESTAR_PROT", "1"), null);
        assertTrue(error.contains("LODESTAR_PROT"), error);
        assertTrue(refusal(Map.of("LODESTAR_LIMIT_NOPE", "1"), null).contains("LODESTAR_LIMIT_NOPE"));
        assertTrue(refusal(Map.of("LODESTAR_PORT", "x"), null).contains("LODESTAR_PORT"));
        // a recovery for one start: a variable left set would drop re-added members at every restart
        assertTrue(refusal(Map.of("LODESTAR_FORCE_NEW_CLUSTER", "true"), null).contains("LODESTAR_FORCE_NEW_CLUSTER"));
        Map<String, String> launcher = Map.of(
                "LODESTAR_JAVA_OPTS", "-Xmx1g",
                "LODESTAR_JAR", "/x.jar",
                "LODESTAR_CDS", "off",
                "LODESTAR_PASSWORD", "pw",
                "LODESTAR_TOKEN", "t",
                "LODESTAR_CLUSTER_SECRET", "0123456789abcdef",
                "NOT_OURS", "x");
        assertEquals(8848, parse(launcher, null).command().port);
    }

    @Test
    void theSummaryNamesTheFileAndEachChangedSettingWithItsSourceAndMasksSecrets() throws Exception {
        Path f = file("port = 1001\nraft-port = 7848\nmetrics-token-file = /etc/lodestar/metrics-token\n"
                + "http.body-bytes = 1KiB\ngrpc.message-bytes = 16MiB\n");
        String secret = "a-cluster-secret-of-some-length";
        Parsed p = parse(
                Map.of("LODESTAR_CLUSTER_SECRET", secret, "LODESTAR_DNS_PORT", "0"),
                null,
                "--config",
                f.toString(),
                "--host",
                "127.0.0.2");
        List<String> lines = p.summary();
        String all = String.join("\n", lines);
        assertEquals("settings file: " + f.toAbsolutePath().normalize(), lines.get(0));
        assertTrue(lines.contains("port = 1001 (from " + f + " line 1)"), all);
        assertTrue(lines.contains("host = 127.0.0.2 (from the command line)"), all);
        assertTrue(lines.contains("dns-port = 0 (from environment variable LODESTAR_DNS_PORT)"), all);
        assertTrue(lines.contains("http.body-bytes = 1KiB (from " + f + " line 4)"), all);
        assertTrue(lines.contains("metrics-token-file = /etc/lodestar/metrics-token (from " + f + " line 3)"), all);
        assertTrue(lines.contains("cluster-secret = **** (from environment variable LODESTAR_CLUSTER_SECRET)"), all);
        assertFalse(all.contains(secret), all);
        assertFalse(all.contains("raft-port"), "at its default: " + all);
        assertFalse(all.contains("grpc.message-bytes"), "at its default, written as a size: " + all);
    }

    @Test
    void secretsAreMaskedAndPathsOfSecretsShown() {
        assertEquals("****", ServerSettingSources.shown("cluster-secret", "s"));
        assertEquals("****", ServerSettingSources.shown("admin-password", "s"));
        assertEquals("****", ServerSettingSources.shown("metrics-token", "s"));
        assertEquals("****", ServerSettingSources.shown("tls-key", "s"));
        assertEquals("/k.pem", ServerSettingSources.shown("tls-key-file", "/k.pem"));
        assertEquals("on", ServerSettingSources.shown("auth", "on"));
        assertEquals("127.0.0.1", ServerSettingSources.shown("host", "127.0.0.1"));
    }

    @Test
    void everySettingHasItsOwnVariable() {
        Set<String> names = new HashSet<>(ServerSettingSources.NOT_SETTINGS);
        ServerCommand command = new ServerCommand();
        new CommandLine(command);
        ServerSettingSources.settable(command.spec)
                .keySet()
                .forEach(k -> assertTrue(names.add(ServerSettingSources.envName(k)), k));
        for (Limit l : Limit.values()) {
            assertTrue(names.add(ServerSettingSources.envName(l)), l.key());
        }
        assertEquals("LODESTAR_DATA_DIR", ServerSettingSources.envName("data-dir"));
        assertEquals("LODESTAR_LIMIT_HTTP_BODY_BYTES", ServerSettingSources.envName(Limit.HTTP_BODY_BYTES));
    }

    @Test
    void noFileAndNoVariablesChangeNothing() {
        ServerCommand command = parse(Map.of(), null).command();
        assertEquals("127.0.0.1", command.host);
        assertNull(command.grpcPort);
        assertEquals(List.of(), command.limits);
    }

    /**
     * The server refuses an unknown LODESTAR_* variable, so one that the launcher or the CLI reads
     * and that is missing from the let-be list would stop a server started from the same shell.
     */
    @Test
    void everyVariableTheLauncherOrTheCliReadsIsLetBe() throws Exception {
        Pattern name = Pattern.compile("LODESTAR_[A-Z_]*[A-Z]");
        Set<String> used = new HashSet<>();
        List<Path> sources;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            sources = files.filter(f -> f.toString().endsWith(".java")).toList();
        }
        for (Path f : sources) {
            name.matcher(Files.readString(f)).results().forEach(m -> used.add(m.group()));
        }
        name.matcher(Files.readString(Path.of("../bin/lodestar"))).results().forEach(m -> used.add(m.group()));
        Set<String> settings = new HashSet<>();
        ServerCommand command = new ServerCommand();
        new CommandLine(command);
        ServerSettingSources.settable(command.spec)
                .keySet()
                .forEach(k -> settings.add(ServerSettingSources.envName(k)));
        for (String variable : used) {
            if (!variable.startsWith(ServerSettingSources.LIMIT_ENV_PREFIX)
                    && !ServerSettingSources.LIMIT_ENV_PREFIX.startsWith(variable + "_")) {
                assertTrue(
                        settings.contains(variable) || ServerSettingSources.NOT_SETTINGS.contains(variable),
                        variable + " is read somewhere but would make the server refuse to start");
            }
        }
        assertTrue(used.contains("LODESTAR_SERVER"), String.valueOf(used));
    }
}
