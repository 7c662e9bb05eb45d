package io.lodestar.api.cli.client;

import java.io.Console;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Who the command line speaks as, decided once per run: with {@code --username}, that user with
 * the password from {@code --password-file}, else {@value #PASSWORD_ENV}, else a prompt on the
 * terminal (not echoed); without it, the token in {@value #TOKEN_ENV}, else user {@value
 * #DEFAULT_USER} when a password file or {@value #PASSWORD_ENV} is given, else nobody (a server
 * with authentication off). Passwords are never taken from arguments, which {@code ps} shows.
 * The prompt is shown only when a request is about to be sent, never for {@code --help}.
 */
public final class Credentials {
    static final String PASSWORD_ENV = "LODESTAR_PASSWORD";
    static final String TOKEN_ENV = "LODESTAR_TOKEN";
    static final String DEFAULT_USER = "nacos";

    /** A token given as is, or null. */
    final String token;
    /** The user to log in as, or null when {@link #token} is used or nobody logs in. */
    final String username;

    private final Path passwordFile;
    private final String passwordFromEnv;
    /** Where the password may come from, for the message when there is none. */
    private String passwordHint = "give --password-file, set " + PASSWORD_ENV + ",";
    /** Whose password the prompt asks for: the user's name, and for another server which one. */
    private String promptName;
    /** The password once asked for, so that a watch logging in again after a reconnection does not ask again. */
    private char[] typed;

    private Credentials(String token, String username, Path passwordFile, String passwordFromEnv) {
        this.token = token;
        this.username = username;
        this.passwordFile = passwordFile;
        this.passwordFromEnv = passwordFromEnv;
    }

    static Credentials of(String username, Path passwordFile, Map<String, String> env) {
        String password = blankToNull(env.get(PASSWORD_ENV));
        String token = blankToNull(env.get(TOKEN_ENV));
        if (username != null) {
            return new Credentials(null, username, passwordFile, password);
        }
        if (token != null) {
            return new Credentials(token, null, null, null);
        }
        if (passwordFile != null || password != null) {
            return new Credentials(null, DEFAULT_USER, passwordFile, password);
        }
        return new Credentials(null, null, null, null);
    }

    /**
     * Credentials for another server than the one {@code --server} names (the source of {@code
     * migrate}, which the prompt calls {@code where}): {@code username} (none: no login) with the
     * password from {@code passwordEnv} in {@code env}, else a prompt on the terminal.
     */
    public static Credentials forUser(String username, String passwordEnv, String where, Map<String, String> env) {
        if (username == null) {
            return new Credentials(null, null, null, null);
        }
        Credentials c = new Credentials(null, username, null, blankToNull(env.get(passwordEnv)));
        c.passwordHint = "set " + passwordEnv;
        c.promptName = username + " " + where;
        return c;
    }

    boolean logsIn() {
        return username != null;
    }

    /** The password for {@link #username}: from the file, the environment or the terminal. */
    char[] password() {
        if (passwordFile != null) {
            try {
                return Files.readString(passwordFile).trim().toCharArray();
            } catch (IOException e) {
                throw new CommandFailure(ExitCodes.USAGE, "--password-file: cannot read " + passwordFile + ": " + e);
            }
        }
        if (passwordFromEnv != null) {
            return passwordFromEnv.toCharArray();
        }
        Console console = System.console();
        if (console == null) {
            throw new CommandFailure(
                    ExitCodes.USAGE,
                    "no password for " + username + ": " + passwordHint + " or run in a terminal to be asked");
        }
        if (typed == null) {
            typed = console.readPassword("Password for %s: ", promptName == null ? username : promptName);
            if (typed == null) {
                throw new CommandFailure(ExitCodes.USAGE, "no password for " + username + ": input ended");
            }
        }
        return typed.clone();
    }

    /** Asks twice on the terminal for a new password (for {@code user add} and {@code user passwd}). */
    public static char[] newPassword(String forUser, Map<String, String> env, String envName) {
        String given = blankToNull(env.get(envName));
        if (given != null) {
            return given.toCharArray();
        }
        Console console = System.console();
        if (console == null) {
            throw new CommandFailure(
                    ExitCodes.USAGE, "no new password for " + forUser + ": set " + envName + " or run in a terminal");
        }
        char[] first = console.readPassword("New password for %s: ", forUser);
        char[] second = console.readPassword("Again: ");
        if (first == null || second == null || !java.util.Arrays.equals(first, second)) {
            throw new CommandFailure(ExitCodes.USAGE, "the two passwords differ (or input ended): nothing changed");
        }
        return first;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
