package io.lodestar.error;

/**
 * A request refused by one of the node's limits. {@link #subject()} is the limit's name as an
 * operator sets it (e.g. {@code http.body-bytes}), so the answer names the setting to look at, and
 * the refusals are counted per limit.
 */
public final class LimitExceededException extends LodestarException {
    private static final long serialVersionUID = 1L;

    private LimitExceededException(ErrorKind kind, String limit, String message) {
        super(kind, limit, message);
    }

    /** A request larger than {@code limit} allows. */
    public static LimitExceededException tooLarge(String limit, long allowed, String what) {
        return new LimitExceededException(
                ErrorKind.TOO_LARGE, limit, what + " is larger than the limit " + limit + " (" + allowed + ")");
    }

    /** One more of something than {@code limit} allows at once. */
    public static LimitExceededException tooMany(String limit, long allowed, String what) {
        return new LimitExceededException(
                ErrorKind.TOO_MANY, limit, what + ": the limit " + limit + " (" + allowed + ") is reached");
    }

    /**
     * A {@link #tooMany} refusal another member made, worded as it worded it: for refusals carried
     * between members ({@code message} is the refusal's {@link #getMessage()}).
     */
    public static LimitExceededException relayedTooMany(String limit, String message) {
        return new LimitExceededException(ErrorKind.TOO_MANY, limit, message);
    }

    /** The limit's name. */
    public String limit() {
        return subject();
    }
}
