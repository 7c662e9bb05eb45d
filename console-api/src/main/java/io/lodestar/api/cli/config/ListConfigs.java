package io.lodestar.api.cli.config;

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

/** Lists a namespace's configs through the v1 search ({@code search=blur}), page after page. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = "List a namespace's configs, optionally only those matching --data-id / --group patterns.")
final class ListConfigs extends ClientCommand {
    private static final int PAGE = 500;

    @Option(
            names = "--data-id",
            defaultValue = "*",
            paramLabel = "PATTERN",
            description = "dataIds to list; * matches any characters (default: all).")
    String dataId;

    @Option(
            names = "--group",
            defaultValue = "*",
            paramLabel = "PATTERN",
            description = "Groups to list; * matches any characters (default: all).")
    String group;

    @Mixin
    NamespaceOption namespace;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        ArrayNode rows = Output.rows();
        for (int page = 1; ; page++) {
            JsonNode answer = client.get(ConfigCommand.CONFIGS)
                    .param("search", "blur")
                    .param("dataId", dataId)
                    .param("group", group)
                    .param("tenant", namespace.id())
                    .param("pageNo", String.valueOf(page))
                    .param("pageSize", String.valueOf(PAGE))
                    .ok()
                    .json();
            for (JsonNode item : answer.path("pageItems")) {
                rows.add(Output.row()
                        .put("dataId", item.path("dataId").asText())
                        .put("group", item.path("group").asText())
                        .put("type", item.path("type").asText(""))
                        .put("md5", item.path("md5").asText()));
            }
            if (page >= answer.path("pagesAvailable").asInt()) {
                break;
            }
        }
        out.table(rows, "dataId", "group", "type", "md5");
        return ExitCodes.OK;
    }
}
