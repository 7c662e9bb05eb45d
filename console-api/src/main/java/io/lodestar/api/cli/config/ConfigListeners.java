package io.lodestar.api.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.GatheredAnswer;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import io.lodestar.api.cli.client.Reply;
import io.lodestar.config.ContentMd5;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Who listens to a config on every member ({@code GET /nacos/v1/cs/configs/listener}, which the
 * node asked gathers): each client's address, protocol and the md5 it holds, so a client holding
 * a stale md5 stands out. A member that did not answer is named on stderr and makes the exit code
 * 1, since its listeners are missing from the list.
 */
@Command(
        name = "listeners",
        mixinStandardHelpOptions = true,
        description = "List who listens to a config on every member: client address, protocol, the md5 it holds"
                + " (marked stale when it is not the stored one) and the member holding it.")
final class ConfigListeners extends ClientCommand {
    @Mixin
    KeyOptions key;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        JsonNode answer =
                key.on(client.get("/nacos/v1/cs/configs/listener")).ok().json();
        Reply current = key.on(client.get(ConfigCommand.CONFIGS)).send();
        String stored = current.status() == 200 ? ContentMd5.of(current.body()) : ""; // none stored: every md5 is stale
        ArrayNode rows = Output.rows();
        for (JsonNode l : answer.path("listeners")) {
            String md5 = l.path("md5").asText("");
            rows.add(Output.row()
                    .put("client", l.path("clientAddress").asText())
                    .put("protocol", l.path("protocol").asText())
                    .put("md5", md5)
                    .put("current", md5.equals(stored))
                    .put("node", l.path("node").asText()));
        }
        out.table(rows, "client", "protocol", "md5", "current", "node");
        return GatheredAnswer.reportSilentMembers(answer, "listeners");
    }
}
