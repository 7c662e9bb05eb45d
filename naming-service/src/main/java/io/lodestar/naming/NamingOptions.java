package io.lodestar.naming;

import io.lodestar.naming.ephemeral.ExpiryRules;
import java.time.Duration;

/**
 * Tunables of the registry.
 *
 * @param heartbeatCheckInterval how often ephemeral instances are checked for missed beats (Nacos: 5 s)
 * @param emptyPushProtection    answer the last non-empty list after a mass expiry (see {@link NamingService#list})
 * @param protectionWindow       how long at most such a list is answered
 * @param emptyServiceTtl        how long a service that only existed through ephemeral instances is
 *                               kept once it has none (Nacos 2.x: 60 s)
 */
public record NamingOptions(Duration heartbeatCheckInterval, boolean emptyPushProtection, Duration protectionWindow,
                            Duration emptyServiceTtl) {
    public static final NamingOptions DEFAULT = new NamingOptions(Duration.ofSeconds(5), true, Duration.ofSeconds(60),
            Duration.ofSeconds(60));

    public NamingOptions withHeartbeatCheckInterval(Duration interval) {
        return new NamingOptions(interval, emptyPushProtection, protectionWindow, emptyServiceTtl);
    }

    public NamingOptions withEmptyPushProtection(boolean on) {
        return new NamingOptions(heartbeatCheckInterval, on, protectionWindow, emptyServiceTtl);
    }

    public NamingOptions withProtectionWindow(Duration window) {
        return new NamingOptions(heartbeatCheckInterval, emptyPushProtection, window, emptyServiceTtl);
    }

    public NamingOptions withEmptyServiceTtl(Duration ttl) {
        return new NamingOptions(heartbeatCheckInterval, emptyPushProtection, protectionWindow, ttl);
    }

    ExpiryRules expiryRules() {
        return new ExpiryRules(heartbeatCheckInterval.toMillis(), emptyPushProtection, protectionWindow.toMillis(),
                emptyServiceTtl.toMillis());
    }
}
