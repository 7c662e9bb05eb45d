package io.lodestar.api.cli.client;

/** Why a command stops, with the exit code it stops with ({@link ExitCodes}) and the message to print. */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public CommandFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
