package io.lodestar.api.cli.config;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import picocli.CommandLine.Command;

/**
 * How many long-polls each server named by {@code --server} holds ({@code GET
 * /lodestar/v1/config/listeners}): the count is per node, so every node is asked, not just the first
 * that answers. The server keeps no list of listeners per config, so neither can this command.
 */
@Command(
        name = "listeners",
        mixinStandardHelpOptions = true,
        description = "Show how many config long-polls (nacos-client 1.x listeners) each --server holds.")
final class ConfigListeners extends ClientCommand {
    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        ArrayNode rows = Output.rows();
        int exit = ExitCodes.OK;
        for (URI server : List.copyOf(client.servers())) {
            try {
                long held = client.pinnedTo(server)
                        .get("/lodestar/v1/config/listeners")
                        .ok()
                        .json()
                        .path("held")
                        .asLong();
                rows.add(Output.row().put("server", server.getAuthority()).put("held", held));
            } catch (CommandFailure f) {
                if (f.exitCode() == ExitCodes.REFUSED) {
                    throw f;
                }
                rows.add(Output.row().put("server", server.getAuthority()).put("error", f.getMessage()));
                exit = ExitCodes.FAILED;
            }
        }
        out.table(rows, "server", "held", "error");
        return exit;
    }
}
