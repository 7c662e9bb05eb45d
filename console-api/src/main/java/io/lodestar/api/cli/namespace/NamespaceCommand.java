package io.lodestar.api.cli.namespace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.CommandFailure;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code lodestar namespace ...}: namespaces through {@code /nacos/v1/console/namespaces}. */
@Command(
        name = "namespace",
        mixinStandardHelpOptions = true,
        description = "List, create and delete namespaces.",
        subcommands = {NamespaceCommand.List.class, NamespaceCommand.Create.class, NamespaceCommand.Delete.class})
public final class NamespaceCommand {
    static final String PATH = "/nacos/v1/console/namespaces";

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the namespaces, public first.")
    static final class List extends ClientCommand {
        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            ArrayNode rows = Output.rows();
            for (JsonNode n : client.get(PATH).ok().json().path("data")) {
                String id = n.path("namespace").asText();
                rows.add(Output.row()
                        .put("id", id)
                        .put("name", n.path("namespaceShowName").asText())
                        .put("configs", n.path("configCount").asLong())
                        .put("description", n.path("namespaceDesc").asText("")));
            }
            out.table(rows, "id", "name", "configs", "description");
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = "Create a namespace; exit 1 if the id exists (nothing is overwritten).")
    static final class Create extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "Its id: letters, digits, - and _, at most 128.")
        String id;

        @Option(names = "--name", paramLabel = "NAME", description = "Its display name (default: the id).")
        String name;

        @Option(names = "--description", paramLabel = "TEXT", description = "What it holds.")
        String description;

        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            String created = client.post(PATH)
                    .param("customNamespaceId", id)
                    .param("namespaceName", name == null ? id : name)
                    .param("namespaceDesc", description == null ? "" : description)
                    .ok()
                    .text()
                    .trim();
            if (!created.equals("true")) {
                throw new CommandFailure(ExitCodes.FAILED, "namespace '" + id + "' exists already: nothing changed");
            }
            out.done("created namespace " + id);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete an empty namespace (exit 1 while it holds configs; exit 3 if there is none).")
    static final class Delete extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "Its id.")
        String id;

        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            // the server answers true for an unknown id too; say so rather than claim a deletion
            if (client.get(PATH)
                            .param("show", "all")
                            .param("namespaceId", id)
                            .send()
                            .status()
                    == 404) {
                throw new CommandFailure(ExitCodes.NOT_FOUND, "namespace '" + id + "' not found");
            }
            client.delete(PATH).param("namespaceId", id).ok();
            out.done("deleted namespace " + id);
            return ExitCodes.OK;
        }
    }
}
