package io.lodestar.api.cli.client;

import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of every command that talks to a running server: where it is, who is asking, how to print. */
public final class ClientOptions {
    @Option(
            names = "--server",
            split = ",",
            paramLabel = "host:port",
            defaultValue = "${env:LODESTAR_SERVER:-127.0.0.1:8848}",
            description = "A server's HTTP address, optionally with its scheme (https://). Repeat it or give a"
                    + " comma-separated list: they are tried in order while one cannot be reached."
                    + " Default: $LODESTAR_SERVER, else 127.0.0.1:8848.")
    List<String> servers;

    @Option(
            names = "--tls-ca-file",
            paramLabel = "PEM",
            description = "Talk HTTPS (and wss) to servers started with --tls-cert-file, trusting the certificates"
                    + " in this PEM file (the CA's that signed the servers', or a self-signed server's own)."
                    + " For a certificate the JVM trusts already, give --server https://host:port instead.")
    Path tlsCaFile;

    @Option(
            names = "--username",
            description = "Log in as this user. The password comes from --password-file, else $"
                    + Credentials.PASSWORD_ENV + ", else a prompt on the terminal. Without --username: the token in $"
                    + Credentials.TOKEN_ENV + ", else user nacos when a password is given, else no login.")
    String username;

    @Option(
            names = "--password-file",
            paramLabel = "PATH",
            description = "A file holding the password (e.g. <data-dir>/initial-admin-password). Never give a"
                    + " password as an argument: ps shows arguments.")
    Path passwordFile;

    @Option(
            names = "--output",
            defaultValue = "table",
            paramLabel = "table|json",
            description = "How to print answers: aligned columns (default) or JSON.")
    Output.Format output;

    public List<String> servers() {
        return servers;
    }

    public Output output() {
        return new Output(output, System.out);
    }
}
