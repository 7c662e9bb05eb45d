package io.lodestar.api.cli;

import io.lodestar.api.cli.config.ConfigCommand;
import io.lodestar.api.cli.migrate.MigrateCommand;
import io.lodestar.api.cli.namespace.NamespaceCommand;
import io.lodestar.api.cli.naming.NamingCommand;
import io.lodestar.api.cli.snapshot.SnapshotCommand;
import io.lodestar.api.cli.user.UserCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The top-level command; its only job is to route to a subcommand: {@code server} and {@code
 * self-test} run a node; the operator verbs ({@code config}, {@code naming}, {@code namespace},
 * {@code cluster}, {@code user}) talk to running nodes over HTTP through {@code cli.client}, one
 * package per verb group; {@code migrate} copies a running Nacos into a running Lodestar.
 */
@Command(
        name = "lodestar",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Lodestar: a config center and service registry speaking the Nacos Open API.",
        subcommands = {
            ServerCommand.class,
            ConfigCommand.class,
            NamingCommand.class,
            NamespaceCommand.class,
            ClusterCommand.class,
            SnapshotCommand.class,
            UserCommand.class,
            MigrateCommand.class,
            SelfTestCommand.class,
            CompletionCommand.class,
            CommandLine.HelpCommand.class
        })
public final class LodestarCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: try 'server'");
    }

    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new LodestarCommand());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return cli;
    }
}
