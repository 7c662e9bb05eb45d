package io.lodestar.api.cli.user;

import io.lodestar.api.cli.client.ClientCommand;
import io.lodestar.api.cli.client.Credentials;
import io.lodestar.api.cli.client.ExitCodes;
import io.lodestar.api.cli.client.LodestarClient;
import io.lodestar.api.cli.client.Output;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code lodestar user ...}: users through Nacos's {@code /nacos/v1/auth/users}, and their rights
 * through roles and permissions ({@link Grant}, {@link Revoke}). A new password is asked twice on
 * the terminal, or taken from {@value #NEW_PASSWORD_ENV}; never from an argument.
 */
@Command(
        name = "user",
        mixinStandardHelpOptions = true,
        description = "Add users, change passwords, delete users, grant and revoke permissions (the admin's job).",
        subcommands = {
            UserCommand.Add.class,
            UserCommand.Passwd.class,
            UserCommand.Delete.class,
            Grant.class,
            Revoke.class
        })
public final class UserCommand {
    static final String USERS = "/nacos/v1/auth/users";
    static final String ROLES = "/nacos/v1/auth/roles";
    static final String PERMISSIONS = "/nacos/v1/auth/permissions";
    static final String NEW_PASSWORD_ENV = "LODESTAR_NEW_PASSWORD";

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Add a user; its password is asked twice, or taken from $" + NEW_PASSWORD_ENV + ".")
    static final class Add extends ClientCommand {
        @Parameters(paramLabel = "USER")
        String user;

        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            client.token(false); // log in (and maybe ask for the caller's password) before asking for the new one
            char[] password = Credentials.newPassword(user, System.getenv(), NEW_PASSWORD_ENV);
            client.post(USERS)
                    .param("username", user)
                    .param("password", new String(password))
                    .ok();
            out.done("added user " + user);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "passwd",
            mixinStandardHelpOptions = true,
            description = "Change a user's password (the admin's, or the user's own); the new one is asked twice,"
                    + " or taken from $" + NEW_PASSWORD_ENV + ".")
    static final class Passwd extends ClientCommand {
        @Parameters(paramLabel = "USER")
        String user;

        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            client.token(false);
            char[] password = Credentials.newPassword(user, System.getenv(), NEW_PASSWORD_ENV);
            client.put(USERS)
                    .param("username", user)
                    .param("newPassword", new String(password))
                    .ok();
            out.done("changed the password of " + user);
            return ExitCodes.OK;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a user (exit 3 if unknown).")
    static final class Delete extends ClientCommand {
        @Parameters(paramLabel = "USER")
        String user;

        @Override
        protected int run(LodestarClient client, Output out) throws IOException, InterruptedException {
            client.delete(USERS).param("username", user).ok();
            out.done("deleted user " + user);
            return ExitCodes.OK;
        }
    }
}
