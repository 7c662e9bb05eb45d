package io.lodestar.error;

/** The authenticated caller may not do what it asked. */
public final class ForbiddenException extends LodestarException {
    private static final long serialVersionUID = 1L;

    public ForbiddenException(String message) {
        super(ErrorKind.FORBIDDEN, null, message);
    }
}
