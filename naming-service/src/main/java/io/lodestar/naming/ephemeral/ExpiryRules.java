package io.lodestar.naming.ephemeral;

/**
 * How ephemeral instances age.
 *
 * @param checkIntervalMs   how often the heartbeat monitor runs an expiry pass
 * @param emptyServiceTtlMs how long a service without instances (and without a stored definition)
 *                          is kept before it is forgotten, as Nacos 2.x's empty-service cleaner does
 */
public record ExpiryRules(long checkIntervalMs, long emptyServiceTtlMs) {
    public static final ExpiryRules DEFAULT = new ExpiryRules(1_000, 60_000);

    public ExpiryRules {
        if (checkIntervalMs <= 0 || emptyServiceTtlMs < 0) {
            throw new IllegalArgumentException("the check interval must be positive, the TTL not negative");
        }
    }
}
