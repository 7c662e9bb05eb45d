package io.lodestar.api.cli.naming;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.json.Json;
import java.io.IOException;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Registers (or replaces) an instance: {@code POST /nacos/v1/ns/instance}. */
@Command(
        name = "register",
        mixinStandardHelpOptions = true,
        description = "Register an instance (persistent unless --ephemeral), or replace the one at that address.")
final class RegisterInstance extends ClientCommand {
    @Mixin
    InstanceOptions instance;

    @Option(names = "--weight", paramLabel = "W", description = "Its weight (default: 1).")
    Double weight;

    @Option(names = "--metadata", paramLabel = "KEY=VALUE", split = ",", description = "Metadata, repeatable.")
    Map<String, String> metadata;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        instance.on(client.post(NamingCommand.INSTANCE))
                .param("weight", weight == null ? null : weight.toString())
                .param("metadata", metadata == null ? null : Json.MAPPER.writeValueAsString(metadata))
                .ok();
        out.done("registered " + instance);
        return ExitCodes.OK;
    }
}
