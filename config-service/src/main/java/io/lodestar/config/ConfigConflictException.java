package io.lodestar.config;

import io.lodestar.kv.KvException;

/** A compare-and-publish found another md5 than the caller expected: nothing was written. */
public final class ConfigConflictException extends KvException {
    private static final long serialVersionUID = 1L;

    public ConfigConflictException(String message) {
        super(message);
    }
}
