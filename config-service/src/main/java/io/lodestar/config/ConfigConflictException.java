package io.lodestar.config;

import io.lodestar.error.ErrorKind;
import io.lodestar.error.LodestarException;

/** A compare-and-publish found another md5 than the caller expected: nothing was written. */
public final class ConfigConflictException extends LodestarException {
    private static final long serialVersionUID = 1L;

    public ConfigConflictException(String message) {
        super(ErrorKind.CONFLICT, "casMd5", message);
    }
}
