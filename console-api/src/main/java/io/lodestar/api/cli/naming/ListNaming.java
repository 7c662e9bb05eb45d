package io.lodestar.api.cli.naming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.NamespaceOption;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** A group's services ({@code /nacos/v1/ns/service/list}), or with {@code --service} its instances. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = "List a group's services, or with --service that service's instances (all, healthy or not).")
final class ListNaming extends ClientCommand {
    @Option(names = "--service", paramLabel = "NAME", description = "List this service's instances.")
    String service;

    @Option(
            names = "--group",
            defaultValue = ServiceOptions.DEFAULT_GROUP,
            paramLabel = "GROUP",
            description = "The group (default: ${DEFAULT-VALUE}).")
    String group;

    @Mixin
    NamespaceOption namespace;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        if (service != null) {
            JsonNode list = client.get(NamingCommand.INSTANCES)
                    .param("serviceName", service)
                    .param("groupName", group)
                    .param("namespaceId", namespace.id())
                    .ok()
                    .json();
            out.table(Instances.rows(list), Instances.COLUMNS);
            return ExitCodes.OK;
        }
        JsonNode services = client.get("/nacos/v1/ns/service/list")
                .param("pageNo", "1")
                .param("pageSize", String.valueOf(Integer.MAX_VALUE))
                .param("groupName", group)
                .param("namespaceId", namespace.id())
                .ok()
                .json();
        ArrayNode rows = Output.rows();
        for (JsonNode name : services.path("doms")) {
            rows.add(Output.row().put("service", name.asText()).put("group", group));
        }
        out.table(rows, "service", "group");
        return ExitCodes.OK;
    }
}
