package io.lodestar.kv;

import io.lodestar.error.ErrorKind;

/**
 * No leader could be reached within the request timeout (an election is running, or this node is
 * cut off from a majority). Nothing was committed on behalf of the request.
 */
public final class NoLeaderException extends KvException {
    private static final long serialVersionUID = 1L;

    public NoLeaderException(String message) {
        super(ErrorKind.UNAVAILABLE, message);
    }
}
