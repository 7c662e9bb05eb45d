package io.lodestar.api.cli.config;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.cli.client.Reply;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Prints a config's content alone, byte for byte (no newline added), so that it can be piped; exit 3 if absent. */
@Command(
        name = "get",
        mixinStandardHelpOptions = true,
        description = "Print a config's content exactly as stored (no newline added). Exit 3 if there is none.")
final class GetConfig extends ClientCommand {
    @Mixin
    KeyOptions key;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        Reply reply = key.on(client.get(ConfigCommand.CONFIGS)).ok();
        System.out.write(reply.body());
        System.out.flush();
        return ExitCodes.OK;
    }
}
