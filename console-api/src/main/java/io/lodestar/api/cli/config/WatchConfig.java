package io.lodestar.api.cli.config;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.NamespaceOption;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Prints each change of some configs as it happens, until interrupted, through the push channel
 * ({@link PushWatch}): one line per change (revision, key, md5 or deleted), or with {@code --output
 * json} the server's notice as one JSON object per line. Progress and reconnections go to stderr.
 */
@Command(
        name = "watch",
        mixinStandardHelpOptions = true,
        description = "Print each change of the configs as it happens, until interrupted (Ctrl-C). After a lost"
                + " connection it reconnects (to the next --server if need be) and prints what changed meanwhile.")
final class WatchConfig extends ClientCommand {
    @Option(
            names = "--data-id",
            required = true,
            split = ",",
            paramLabel = "ID",
            description = "The configs' dataIds (repeat it, or a comma-separated list).")
    List<String> dataIds;

    @Option(
            names = "--group",
            defaultValue = KeyOptions.DEFAULT_GROUP,
            paramLabel = "GROUP",
            description = "Their group (default: ${DEFAULT-VALUE}).")
    String group;

    @Mixin
    NamespaceOption namespace;

    @Option(
            names = "--since-revision",
            paramLabel = "REVISION",
            description = "Print first every change after this store revision (e.g. the last one a previous"
                    + " watch printed); default: only changes from now on.")
    Long sinceRevision;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        return new PushWatch(client, out, group, namespace.id(), dataIds, sinceRevision).run();
    }
}
