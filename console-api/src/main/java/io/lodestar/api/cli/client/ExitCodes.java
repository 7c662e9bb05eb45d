package io.lodestar.api.cli.client;

/**
 * The operator command line's exit codes, the one place they are decided, so that a script can
 * branch on them: 0 done, 1 the server failed or could not be reached (its message printed), 2 bad
 * usage (picocli's own code for a usage error), 3 not found, 4 refused by authentication or
 * authorization (a wrong password, a missing or expired token, no permission).
 */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int NOT_FOUND = 3;
    public static final int REFUSED = 4;

    private ExitCodes() {}

    /** The exit code for an HTTP answer of {@code status}. */
    public static int forStatus(int status) {
        if (status >= 200 && status < 300) {
            return OK;
        }
        if (status == 401 || status == 403) {
            return REFUSED;
        }
        if (status == 404) {
            return NOT_FOUND;
        }
        return FAILED;
    }
}
