package io.lodestar.api.cli.user;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Takes a right back: with {@code --resource} and {@code --action}, removes that permission from
 * the role (every user bound to the role loses it); without them, unbinds the user from the role.
 * Exit 3 when there was no such permission or binding.
 */
@Command(
        name = "revoke",
        mixinStandardHelpOptions = true,
        description = "With --resource and --action: remove that permission from --role (default: the user's"
                + " name). Without: remove the user from --role. Exit 3 if there was none.")
final class Revoke extends ClientCommand {
    @Parameters(paramLabel = "USER")
    String user;

    @Option(names = "--role", paramLabel = "ROLE", description = "The role (default: the user's name).")
    String role;

    @ArgGroup(exclusive = false)
    Permission permission;

    static final class Permission {
        @Option(names = "--resource", required = true, paramLabel = "PATTERN", description = "As granted.")
        String resource;

        @Option(names = "--action", required = true, paramLabel = "r|w|rw", description = "As granted.")
        String action;
    }

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        String r = role == null ? user : role;
        if (permission != null) {
            client.delete(UserCommand.PERMISSIONS)
                    .param("role", r)
                    .param("resource", permission.resource)
                    .param("action", permission.action)
                    .ok();
            out.done("revoked " + permission.action + " on " + permission.resource + " from role " + r);
            return ExitCodes.OK;
        }
        client.delete(UserCommand.ROLES)
                .param("role", r)
                .param("username", user)
                .ok();
        out.done("removed " + user + " from role " + r);
        return ExitCodes.OK;
    }
}
