package io.lodestar.api.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The top-level command; its only job is to route to a subcommand. */
@Command(
        name = "lodestar",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Lodestar: a config center and service registry speaking the Nacos Open API.",
        subcommands = {ServerCommand.class, ClusterCommand.class, SelfTestCommand.class, CommandLine.HelpCommand.class})
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
