package io.lodestar.api.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A config's history, newest first ({@code GET /nacos/v1/cs/history}); with {@code --id}, the
 * content that entry recorded, printed as {@code config get} prints a config.
 */
@Command(
        name = "history",
        mixinStandardHelpOptions = true,
        description = "List a config's changes, newest first (id, op I/U/D, time, user, md5);"
                + " with --id, print the content that change recorded.")
final class ConfigHistory extends ClientCommand {
    static final String HISTORY = "/nacos/v1/cs/history";

    @Mixin
    KeyOptions key;

    @Option(names = "--id", paramLabel = "ID", description = "Print this entry's content (exit 3 if unknown).")
    Long id;

    @Option(
            names = "--limit",
            defaultValue = "100",
            paramLabel = "N",
            description = "List at most N entries (1..500, default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        if (id != null) {
            JsonNode entry =
                    key.on(client.get(HISTORY)).param("nid", id.toString()).ok().json();
            System.out.write(entry.path("content").asText("").getBytes(StandardCharsets.UTF_8));
            System.out.flush();
            return ExitCodes.OK;
        }
        JsonNode page = key.on(client.get(HISTORY))
                .param("search", "accurate")
                .param("pageNo", "1")
                .param("pageSize", String.valueOf(limit))
                .ok()
                .json();
        ArrayNode rows = Output.rows();
        for (JsonNode item : page.path("pageItems")) {
            rows.add(Output.row()
                    .put("id", item.path("id").asText())
                    .put("op", item.path("opType").asText().trim())
                    .put("time", time(item.path("lastModifiedTime")))
                    .put("user", item.path("srcUser").asText(""))
                    .put("md5", item.path("md5").asText("")));
        }
        out.table(rows, "id", "op", "time", "user", "md5");
        return ExitCodes.OK;
    }

    /** Epoch milliseconds as an ISO-8601 instant (UTC); anything else as given. */
    private static String time(JsonNode millis) {
        return millis.canConvertToLong()
                ? java.time.Instant.ofEpochMilli(millis.asLong()).toString()
                : millis.asText();
    }
}
