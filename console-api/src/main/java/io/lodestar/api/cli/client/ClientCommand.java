package io.lodestar.api.cli.client;

import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/**
 * A command that talks to running servers ({@link ClientOptions}): it runs with a client and an
 * output, and whatever stops it becomes its exit code ({@link ExitCodes}) and a message on stderr.
 */
public abstract class ClientCommand implements Callable<Integer> {
    @Mixin
    protected ClientOptions options;

    @Override
    public final Integer call() {
        try {
            return run(LodestarClient.of(options), options.output());
        } catch (CommandFailure f) {
            System.out.flush();
            System.err.println(f.getMessage());
            return f.exitCode();
        } catch (IOException e) {
            System.out.flush();
            System.err.println("request failed: " + LodestarClient.describe(e));
            return ExitCodes.FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCodes.FAILED;
        }
    }

    /** Does the command's work; returns its exit code (usually {@link ExitCodes#OK}). */
    protected abstract int run(LodestarClient client, Output out) throws IOException, InterruptedException;
}
