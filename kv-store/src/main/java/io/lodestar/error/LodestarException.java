package io.lodestar.error;

/**
 * Base of every error Lodestar answers a client with on purpose: its {@link ErrorKind} decides the
 * status of every protocol, and {@link #subject()} names the field or resource it is about. Anything
 * else that escapes a request is a bug, answered as an internal error and logged.
 */
public abstract class LodestarException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final ErrorKind kind;
    private final String subject;

    protected LodestarException(ErrorKind kind, String subject, String message) {
        super(message);
        this.kind = kind;
        this.subject = subject;
    }

    protected LodestarException(ErrorKind kind, String subject, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.subject = subject;
    }

    public final ErrorKind kind() {
        return kind;
    }

    /** The field or resource the error is about (a parameter name, a config key, a member); null if none. */
    public final String subject() {
        return subject;
    }
}
