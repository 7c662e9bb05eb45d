package io.lodestar.config.transfer;

import io.lodestar.error.InvalidRequestException;
import java.util.Locale;

/** What an import does with a config that already exists in the target namespace (Nacos's SameConfigPolicy). */
public enum ImportPolicy {
    /** If any config of the archive exists, import nothing. */
    ABORT,
    /** Keep the existing configs, import the others. */
    SKIP,
    /** Publish over the existing configs. */
    OVERWRITE;

    /** Parses Nacos's parameter value; ABORT when null or blank, as Nacos defaults. */
    public static ImportPolicy parse(String value) {
        if (value == null || value.isBlank()) {
            return ABORT;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("policy", "must be ABORT, SKIP or OVERWRITE, not '" + value + "'");
        }
    }
}
