package io.lodestar.naming.ephemeral;

/**
 * How ephemeral instances age.
 *
 * @param checkIntervalMs     how often the heartbeat monitor runs an expiry pass
 * @param emptyPushProtection keep answering the last non-empty list after one expiry pass removed
 *                            every remaining instance (see {@link MutationApplier})
 * @param protectionWindowMs  how long such a protected list is answered at most
 * @param emptyServiceTtlMs   how long a service without instances (and without a stored definition)
 *                            is kept before it is forgotten, as Nacos 2.x's empty-service cleaner does
 */
public record ExpiryRules(long checkIntervalMs, boolean emptyPushProtection, long protectionWindowMs,
                          long emptyServiceTtlMs) {
    public static final ExpiryRules DEFAULT = new ExpiryRules(5_000, true, 60_000, 60_000);

    public ExpiryRules {
        if (checkIntervalMs <= 0 || protectionWindowMs < 0 || emptyServiceTtlMs < 0) {
            throw new IllegalArgumentException("check interval must be positive, windows not negative");
        }
    }
}
