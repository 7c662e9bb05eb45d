package io.lodestar.api.cli;

import io.lodestar.api.json.Json;
import io.lodestar.api.tls.ClientTrust;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lodestar cluster ...}: shows and changes a running group through any member's HTTP API. */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description = "Show the group, add or remove a member, or move leadership (through any member).",
        subcommands = {
            ClusterCommand.Status.class,
            ClusterCommand.AddMember.class,
            ClusterCommand.RemoveMember.class,
            ClusterCommand.TransferLeader.class
        })
final class ClusterCommand {

    /** Options every subcommand shares. */
    static class Target {
        /** Where the password comes from when no file is named: never an argument, which {@code ps} shows. */
        static final String PASSWORD_ENV = "LODESTAR_PASSWORD";

        @Option(
                names = "--server",
                defaultValue = "127.0.0.1:8848",
                paramLabel = "host:httpPort",
                description = "Any member's HTTP address (default: ${DEFAULT-VALUE}), optionally with its scheme"
                        + " (https://).")
        String server;

        @Option(
                names = "--tls-ca-file",
                paramLabel = "PEM",
                description = "Talk HTTPS to a server started with --tls-cert-file, trusting the certificates in"
                        + " this PEM file (the CA's that signed the server's, or a self-signed server's own)."
                        + " For a certificate the JVM trusts already, give --server https://host:httpPort instead.")
        Path tlsCaFile;

        @Option(
                names = "--username",
                defaultValue = "nacos",
                description =
                        "The user to log in as when the server has authentication on (default: ${DEFAULT-VALUE}).")
        String username;

        @Option(
                names = "--password-file",
                paramLabel = "PATH",
                description = "A file holding that user's password (e.g. <data-dir>/initial-admin-password);"
                        + " else the environment variable " + PASSWORD_ENV + ". Without either, no login.")
        Path passwordFile;

        private HttpClient http; // built by send: the options are not parsed yet when the field is initialised

        /** {@link #server} with its scheme: as given, else https with {@link #tlsCaFile} and http without. */
        private String base() {
            if (server.startsWith("https://") || server.startsWith("http://")) {
                return server;
            }
            return (tlsCaFile != null ? "https://" : "http://") + server;
        }

        int send(String method, String path, String address) throws Exception {
            try {
                HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
                http = (tlsCaFile == null ? client : client.sslContext(ClientTrust.trusting(tlsCaFile))).build();
            } catch (IllegalArgumentException e) {
                System.err.println("--tls-ca-file: " + e.getMessage());
                return CommandLine.ExitCode.USAGE;
            }
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(60));
            if (address != null) {
                String form = "address=" + URLEncoder.encode(address, StandardCharsets.UTF_8);
                request = method.equals("DELETE")
                        ? HttpRequest.newBuilder(URI.create(base() + path + "?" + form))
                                .DELETE()
                        : request.header("Content-Type", "application/x-www-form-urlencoded")
                                .POST(HttpRequest.BodyPublishers.ofString(form));
            }
            HttpResponse<String> answer;
            try {
                String token = token();
                if (token != null) {
                    request.header("Authorization", "Bearer " + token);
                }
                answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException e) {
                System.err.println("cannot reach " + server + ": " + e);
                return CommandLine.ExitCode.SOFTWARE;
            } catch (LoginFailed e) {
                System.err.println(e.getMessage());
                return CommandLine.ExitCode.USAGE;
            }
            (answer.statusCode() < 300 ? System.out : System.err).println(answer.body());
            return answer.statusCode() < 300
                    ? CommandLine.ExitCode.OK
                    : answer.statusCode() < 500 ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        }

        /** A token for {@link #username}, or null when no password is given (a server with authentication off). */
        private String token() throws java.io.IOException, InterruptedException {
            String password =
                    passwordFile != null ? Files.readString(passwordFile).trim() : System.getenv(PASSWORD_ENV);
            if (password == null || password.isEmpty()) {
                return null;
            }
            String form = "username=" + URLEncoder.encode(username, StandardCharsets.UTF_8) + "&password="
                    + URLEncoder.encode(password, StandardCharsets.UTF_8);
            HttpResponse<String> login = http.send(
                    HttpRequest.newBuilder(URI.create(base() + "/nacos/v1/auth/users/login"))
                            .timeout(Duration.ofSeconds(30))
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(form))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (login.statusCode() != 200) {
                throw new LoginFailed("cannot log in as " + username + ": " + login.body());
            }
            return Json.MAPPER.readTree(login.body()).path("accessToken").asText();
        }
    }

    private static final class LoginFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LoginFailed(String message) {
            super(message);
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Print the group as this member sees it.")
    static final class Status extends Target implements Callable<Integer> {
        @Override
        public Integer call() throws Exception {
            return send("GET", "/lodestar/v1/cluster", null);
        }
    }

    /** A change naming one member: POSTs or DELETEs its address at {@code path}. */
    abstract static class MemberChange extends Target implements Callable<Integer> {
        @Parameters(paramLabel = "host:raftPort")
        String address;

        private final String method;
        private final String path;

        MemberChange(String method, String path) {
            this.method = method;
            this.path = path;
        }

        @Override
        public Integer call() throws Exception {
            return send(method, path, address);
        }
    }

    @Command(
            name = "add-member",
            mixinStandardHelpOptions = true,
            description = "Add a started node (its --peers listing the members and itself) to the group.")
    static final class AddMember extends MemberChange {
        AddMember() {
            super("POST", "/lodestar/v1/cluster/members");
        }
    }

    @Command(name = "remove-member", mixinStandardHelpOptions = true, description = "Remove a member from the group.")
    static final class RemoveMember extends MemberChange {
        RemoveMember() {
            super("DELETE", "/lodestar/v1/cluster/members");
        }
    }

    @Command(name = "transfer-leader", mixinStandardHelpOptions = true, description = "Hand leadership to a member.")
    static final class TransferLeader extends MemberChange {
        TransferLeader() {
            super("POST", "/lodestar/v1/cluster/leader");
        }
    }
}
