package io.lodestar.kv;

import io.lodestar.error.ErrorKind;
import io.lodestar.error.LodestarException;

/**
 * Base of the errors a store operation completes with; {@link #outcomeUnknown()} tells a caller
 * whether a write may have been applied despite the error (so a blind retry is not safe for a
 * non-idempotent write).
 */
public abstract class KvException extends LodestarException {
    private static final long serialVersionUID = 1L;

    protected KvException(ErrorKind kind, String message) {
        super(kind, null, message);
    }

    protected KvException(ErrorKind kind, String message, Throwable cause) {
        super(kind, null, message, cause);
    }

    /** True when the write may or may not have been committed. */
    public final boolean outcomeUnknown() {
        return kind() == ErrorKind.OUTCOME_UNKNOWN;
    }
}
