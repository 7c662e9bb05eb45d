package io.lodestar.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code lodestar cluster ...}: shows and changes a running group through any member's HTTP API. */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description = "Show the group, add or remove a member, or move leadership (through any member).",
        subcommands = {
            ClusterCommand.Status.class,
            ClusterCommand.AddMember.class,
            ClusterCommand.RemoveMember.class,
            ClusterCommand.TransferLeader.class
        })
final class ClusterCommand {
    static final String CLUSTER = "/lodestar/v1/cluster";

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Print the group as this member sees it.")
    static final class Status extends ClientCommand {
        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            JsonNode view = client.get(CLUSTER).ok().json();
            if (out.json()) {
                out.object(view);
                return ExitCodes.OK;
            }
            ObjectNode summary = Output.row();
            view.fields().forEachRemaining(e -> {
                if (!e.getKey().equals("members")) {
                    summary.set(e.getKey(), e.getValue());
                }
            });
            out.object(summary);
            System.out.println();
            ArrayNode members = Output.rows();
            view.path("members").forEach(m -> members.add(m.deepCopy()));
            out.table(members, "address", "httpAddress", "state");
            return ExitCodes.OK;
        }
    }

    /** A change naming one member: POSTs or DELETEs its Raft address at {@code path}. */
    abstract static class MemberChange extends ClientCommand {
        @Parameters(paramLabel = "host:raftPort")
        String address;

        private final String method;
        private final String path;
        private final String done;

        MemberChange(String method, String path, String done) {
            this.method = method;
            this.path = path;
            this.done = done;
        }

        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            (method.equals("POST") ? client.post(path) : client.delete(path))
                    .param("address", address)
                    .ok();
            out.done(done + " " + address);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "add-member",
            mixinStandardHelpOptions = true,
            description = "Add a started node (its --peers listing the members and itself) to the group.")
    static final class AddMember extends MemberChange {
        AddMember() {
            super("POST", CLUSTER + "/members", "added member");
        }
    }

    @Command(name = "remove-member", mixinStandardHelpOptions = true, description = "Remove a member from the group.")
    static final class RemoveMember extends MemberChange {
        RemoveMember() {
            super("DELETE", CLUSTER + "/members", "removed member");
        }
    }

    @Command(name = "transfer-leader", mixinStandardHelpOptions = true, description = "Hand leadership to a member.")
    static final class TransferLeader extends MemberChange {
        TransferLeader() {
            super("POST", CLUSTER + "/leader", "handed leadership to");
        }
    }
}
