package io.lodestar.api;

import io.lodestar.api.cli.LodestarCommand;

/** {@code java -jar lodestar.jar ...}: exit 0 on success, 1 on a runtime failure, 2 on bad usage. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        // sofa-common-tools (under bolt) cannot drive logback 1.5 and prints a stack trace trying;
        // told not to, it logs through slf4j, i.e. our logback.
        System.setProperty("logback.middleware.log.disable", "true");
        int code;
        try {
            code = LodestarCommand.commandLine().execute(args);
        } catch (Throwable t) {
            // An Error escapes picocli (a class that no longer loads because the jar was replaced
            // under a running server, say). Without an exit here the JVM would outlive main: bolt's
            // non-daemon threads keep it up, without HTTP, until someone kills it.
            t.printStackTrace();
            code = 1;
        }
        System.exit(code);
    }
}
