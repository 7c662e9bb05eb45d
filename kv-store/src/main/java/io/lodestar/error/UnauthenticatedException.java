package io.lodestar.error;

/** The request carries no valid proof of its caller: no token, a bad or expired one, or a failed login. */
public final class UnauthenticatedException extends LodestarException {
    private static final long serialVersionUID = 1L;

    /** {@code message} says what is wrong without saying which part of a login was (e.g. "user not found!"). */
    public UnauthenticatedException(String message) {
        super(ErrorKind.UNAUTHENTICATED, null, message);
    }
}
