package io.lodestar.api.cli.config;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Deletes a config; as the server, done also when it was absent (exit 0). */
@Command(
        name = "delete",
        mixinStandardHelpOptions = true,
        description = "Delete a config (exit 0 also when there was none, as the server answers).")
final class DeleteConfig extends ClientCommand {
    @Mixin
    KeyOptions key;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        key.on(client.delete(ConfigCommand.CONFIGS)).ok();
        out.done("deleted " + key.dataId + " (group " + key.group + ")");
        return ExitCodes.OK;
    }
}
