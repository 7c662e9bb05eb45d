package io.lodestar.kv.raft;

/** The store could not start; the message names the cause (file, port, configuration). */
public final class StoreStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
