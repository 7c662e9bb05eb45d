package io.lodestar.api.cli.user;

import com.fasterxml.jackson.databind.JsonNode;
import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Gives a user a right, the Nacos way: binds the user to a role (unless bound already) and grants
 * the role a permission (unless granted already), through {@code /nacos/v1/auth/roles} and {@code
 * /nacos/v1/auth/permissions}. Running it twice changes nothing the second time.
 */
@Command(
        name = "grant",
        mixinStandardHelpOptions = true,
        description = "Let a user do something: bind it to --role (default: a role named after the user) and grant"
                + " that role --action on --resource.")
final class Grant extends ClientCommand {
    static final int ALL = 10_000;

    @Parameters(paramLabel = "USER")
    String user;

    @Option(
            names = "--role",
            paramLabel = "ROLE",
            description = "The role that carries the permission (default: the user's name).")
    String role;

    @Option(
            names = "--resource",
            required = true,
            paramLabel = "PATTERN",
            description = "What on: a namespace id (all of it; 'public' for the public one),"
                    + " namespace:group:config/dataId, namespace:group:naming/service, * within a part,"
                    + " or 'cluster'.")
    String resource;

    @Option(names = "--action", required = true, paramLabel = "r|w|rw", description = "Read, write, or both.")
    String action;

    @Override
    protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
        String r = role == null ? user : role;
        if (!bound(client, user, r)) {
            client.post(UserCommand.ROLES)
                    .param("role", r)
                    .param("username", user)
                    .ok();
        }
        if (!granted(client, r, resource, action)) {
            client.post(UserCommand.PERMISSIONS)
                    .param("role", r)
                    .param("resource", resource)
                    .param("action", action)
                    .ok();
        }
        out.done("granted " + user + " (role " + r + ") " + action + " on " + resource);
        return ExitCodes.OK;
    }

    static boolean bound(LodestarClient client, String user, String role) throws IOException, InterruptedException {
        JsonNode page = client.get(UserCommand.ROLES)
                .param("username", user)
                .param("role", role)
                .param("pageSize", String.valueOf(ALL))
                .ok()
                .json();
        return page.path("pageItems").size() > 0;
    }

    static boolean granted(LodestarClient client, String role, String resource, String action)
            throws IOException, InterruptedException {
        JsonNode page = client.get(UserCommand.PERMISSIONS)
                .param("role", role)
                .param("pageSize", String.valueOf(ALL))
                .ok()
                .json();
        for (JsonNode p : page.path("pageItems")) {
            if (p.path("resource").asText().equals(resource)
                    && p.path("action").asText().equals(action)) {
                return true;
            }
        }
        return false;
    }
}
