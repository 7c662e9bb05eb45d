package io.lodestar.api.cli.naming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.GatheredAnswer;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * A service's subscribers from every member ({@code GET /nacos/v1/ns/service/subscribers}, which
 * the node asked gathers): gRPC subscriptions and 1.x clients' UDP push subscriptions. A member
 * that did not answer is printed on stderr and makes the exit code 1, since its subscribers are
 * missing from the list.
 */
@Command(
        name = "subscribers",
        mixinStandardHelpOptions = true,
        description = "List a service's subscribers on every member: address, protocol, client and the member"
                + " holding it.")
final class ServiceSubscribers extends ClientCommand {
    private static final int PAGE = 1000;

    @Mixin
    ServiceOptions service;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        ArrayNode rows = Output.rows();
        JsonNode answer = null;
        for (int page = 1; answer == null || rows.size() < answer.path("count").asInt(); page++) {
            answer = service.on(client.get("/nacos/v1/ns/service/subscribers"))
                    .param("pageNo", String.valueOf(page))
                    .param("pageSize", String.valueOf(PAGE))
                    .ok()
                    .json();
            JsonNode subscribers = answer.path("subscribers");
            if (subscribers.isEmpty()) {
                break;
            }
            for (JsonNode s : subscribers) {
                rows.add(Output.row()
                        .put("address", s.path("addrStr").asText())
                        .put("protocol", s.path("protocol").asText())
                        .put("agent", s.path("agent").asText(""))
                        .put("cluster", s.path("cluster").asText(""))
                        .put("node", s.path("node").asText()));
            }
        }
        out.table(rows, "address", "protocol", "agent", "cluster", "node");
        return GatheredAnswer.reportSilentMembers(answer, "subscribers");
    }
}
