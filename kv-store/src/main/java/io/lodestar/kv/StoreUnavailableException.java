package io.lodestar.kv;

import io.lodestar.error.ErrorKind;

/**
 * The store refused the request without proposing it: shutting down, overloaded, or the node is
 * halted after an error. Nothing was committed on behalf of the request.
 */
public final class StoreUnavailableException extends KvException {
    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message) {
        super(ErrorKind.UNAVAILABLE, message);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        super(ErrorKind.UNAVAILABLE, message, cause);
    }
}
