package io.lodestar.api.cli.config;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Publishes a history entry's content again, as a new change ({@code POST /lodestar/v1/cs/history/rollback}). */
@Command(
        name = "rollback",
        mixinStandardHelpOptions = true,
        description = "Publish again the content a history entry recorded (see 'config history'), as a new change.")
final class RollbackConfig extends ClientCommand {
    @Mixin
    KeyOptions key;

    @Option(names = "--to", required = true, paramLabel = "ID", description = "The history entry's id.")
    long to;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        key.on(client.post("/lodestar/v1/cs/history/rollback"))
                .param("nid", String.valueOf(to))
                .ok();
        out.done("rolled " + key.dataId + " (group " + key.group + ") back to entry " + to);
        return ExitCodes.OK;
    }
}
