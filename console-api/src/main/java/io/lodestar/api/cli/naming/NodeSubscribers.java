package io.lodestar.api.cli.naming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import java.net.URI;
import picocli.CommandLine.Command;

/**
 * How many UDP push subscriptions (nacos-client 1.x subscribers, all services together) each
 * server named by {@code --server} holds, with its push counters, from {@code GET
 * /nacos/v1/ns/operator/metrics}. Every node is asked, since each holds its own. The server serves
 * no list of a service's subscribers (nor counts of its gRPC ones), so neither can this command.
 */
@Command(
        name = "subscribers",
        mixinStandardHelpOptions = true,
        description = "Show how many UDP push subscriptions (nacos-client 1.x, all services) each --server holds,"
                + " with its pushes, acks and failures. The server keeps no per-service list to show.")
final class NodeSubscribers extends ClientCommand {
    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        ArrayNode rows = Output.rows();
        int exit = ExitCodes.OK;
        for (URI server : client.servers()) {
            try {
                JsonNode m = client.pinnedTo(server)
                        .get("/nacos/v1/ns/operator/metrics")
                        .ok()
                        .json();
                rows.add(Output.row()
                        .put("server", server.getAuthority())
                        .put("subscribers", m.path("subscribeCount").asLong())
                        .put("pushes", m.path("udpPushCount").asLong())
                        .put("acks", m.path("udpPushAckCount").asLong())
                        .put("failed", m.path("udpPushFailCount").asLong()));
            } catch (CommandFailure f) {
                if (f.exitCode() == ExitCodes.REFUSED) {
                    throw f;
                }
                rows.add(Output.row().put("server", server.getAuthority()).put("error", f.getMessage()));
                exit = ExitCodes.FAILED;
            }
        }
        out.table(rows, "server", "subscribers", "pushes", "acks", "failed", "error");
        return exit;
    }
}
