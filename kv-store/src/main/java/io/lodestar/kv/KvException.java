package io.lodestar.kv;

/**
 * Base of the errors a store operation completes with. The API layer maps each subtype to a status
 * code in one place; {@link #outcomeUnknown()} tells a caller whether a write may have been
 * applied despite the error (so a blind retry is not safe for a non-idempotent write).
 */
public abstract class KvException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected KvException(String message) {
        super(message);
    }

    protected KvException(String message, Throwable cause) {
        super(message, cause);
    }

    /** True when the write may or may not have been committed. */
    public boolean outcomeUnknown() {
        return false;
    }
}
