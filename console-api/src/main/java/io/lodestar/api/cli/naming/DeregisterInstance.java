package io.lodestar.api.cli.naming;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Deregisters an instance: {@code DELETE /nacos/v1/ns/instance}; done also when it was gone (exit 0). */
@Command(
        name = "deregister",
        mixinStandardHelpOptions = true,
        description = "Deregister an instance (exit 0 also when it was gone, as the server answers).")
final class DeregisterInstance extends ClientCommand {
    @Mixin
    InstanceOptions instance;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        instance.on(client.delete(NamingCommand.INSTANCE)).ok();
        out.done("deregistered " + instance);
        return ExitCodes.OK;
    }
}
