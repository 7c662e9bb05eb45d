package io.lodestar.naming.model;

import io.lodestar.error.InvalidRequestException;
import java.util.Map;

/**
 * An ephemeral instance's heartbeat contract, read from its metadata as Nacos clients set it:
 * the client beats every {@code intervalMs}; the instance turns unhealthy when no beat came for
 * more than {@code timeoutMs} and is removed after {@code deleteTimeoutMs}.
 *
 * <p>As in Nacos, both timeouts must be at least the interval.
 */
public record HeartbeatSettings(long intervalMs, long timeoutMs, long deleteTimeoutMs) {
    public static final String INTERVAL_KEY = "preserved.heart.beat.interval";
    public static final String TIMEOUT_KEY = "preserved.heart.beat.timeout";
    public static final String DELETE_TIMEOUT_KEY = "preserved.ip.delete.timeout";
    public static final long DEFAULT_INTERVAL_MS = 5_000;
    public static final long DEFAULT_TIMEOUT_MS = 15_000;
    public static final long DEFAULT_DELETE_TIMEOUT_MS = 30_000;
    public static final HeartbeatSettings DEFAULT =
            new HeartbeatSettings(DEFAULT_INTERVAL_MS, DEFAULT_TIMEOUT_MS, DEFAULT_DELETE_TIMEOUT_MS);

    public HeartbeatSettings {
        if (intervalMs <= 0 || timeoutMs <= 0 || deleteTimeoutMs <= 0) {
            throw new InvalidRequestException("metadata", "heartbeat interval and timeouts must be positive");
        }
        if (timeoutMs < intervalMs || deleteTimeoutMs < intervalMs) {
            throw new InvalidRequestException(
                    "metadata",
                    "'" + INTERVAL_KEY + "' (" + intervalMs
                            + ") must not exceed '" + TIMEOUT_KEY + "' (" + timeoutMs + ") nor '" + DELETE_TIMEOUT_KEY
                            + "' (" + deleteTimeoutMs + ")");
        }
    }

    /** The settings an instance's metadata asks for; malformed values are {@link InvalidRequestException}. */
    public static HeartbeatSettings of(Map<String, String> metadata) {
        if (!metadata.containsKey(INTERVAL_KEY)
                && !metadata.containsKey(TIMEOUT_KEY)
                && !metadata.containsKey(DELETE_TIMEOUT_KEY)) {
            return DEFAULT;
        }
        return new HeartbeatSettings(
                millis(metadata, INTERVAL_KEY, DEFAULT_INTERVAL_MS),
                millis(metadata, TIMEOUT_KEY, DEFAULT_TIMEOUT_MS),
                millis(metadata, DELETE_TIMEOUT_KEY, DEFAULT_DELETE_TIMEOUT_MS));
    }

    private static long millis(Map<String, String> metadata, String key, long fallback) {
        String value = metadata.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            long ms = Long.parseLong(value.trim());
            if (ms <= 0) {
                throw new InvalidRequestException(
                        "metadata", "'" + key + "' must be a positive number of milliseconds, not " + value);
            }
            return ms;
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(
                    "metadata", "'" + key + "' must be a number of milliseconds, not '" + value + "'");
        }
    }
}
