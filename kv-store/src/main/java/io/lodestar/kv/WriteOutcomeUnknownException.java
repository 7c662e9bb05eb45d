package io.lodestar.kv;

import io.lodestar.error.ErrorKind;

/**
 * The write was handed to a leader but no outcome arrived: it timed out, or the leader lost its
 * leadership before it committed. It may still be committed later; read before retrying.
 */
public final class WriteOutcomeUnknownException extends KvException {
    private static final long serialVersionUID = 1L;

    public WriteOutcomeUnknownException(String message) {
        super(ErrorKind.OUTCOME_UNKNOWN, message);
    }

    public WriteOutcomeUnknownException(String message, Throwable cause) {
        super(ErrorKind.OUTCOME_UNKNOWN, message, cause);
    }
}
