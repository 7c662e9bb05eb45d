package io.lodestar.error;

/** Rejected at the API boundary before anything was proposed: names the offending field. */
public final class InvalidRequestException extends LodestarException {
    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String field, String message) {
        this(ErrorKind.INVALID, field, message);
    }

    private InvalidRequestException(ErrorKind kind, String field, String message) {
        super(kind, field, field + ": " + message);
    }

    /** {@code field} is required and was not sent. */
    public static InvalidRequestException missing(String field) {
        return new InvalidRequestException(ErrorKind.MISSING, field, "is required");
    }

    public String field() {
        return subject();
    }
}
