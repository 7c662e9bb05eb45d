package io.lodestar.naming;

import io.lodestar.naming.distro.Distro;
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
 * @param distro                 timing of the replication of ephemeral instances between members
 */
public record NamingOptions(Duration heartbeatCheckInterval, boolean emptyPushProtection, Duration protectionWindow,
                            Duration emptyServiceTtl, Distro.Options distro) {
    public static final NamingOptions DEFAULT = new NamingOptions(Duration.ofSeconds(5), true, Duration.ofSeconds(60),
            Duration.ofSeconds(60), Distro.Options.DEFAULT);

    public NamingOptions withHeartbeatCheckInterval(Duration interval) {
        return new NamingOptions(interval, emptyPushProtection, protectionWindow, emptyServiceTtl, distro);
    }

    public NamingOptions withEmptyPushProtection(boolean on) {
        return new NamingOptions(heartbeatCheckInterval, on, protectionWindow, emptyServiceTtl, distro);
    }

    public NamingOptions withProtectionWindow(Duration window) {
        return new NamingOptions(heartbeatCheckInterval, emptyPushProtection, window, emptyServiceTtl, distro);
    }

    public NamingOptions withEmptyServiceTtl(Duration ttl) {
        return new NamingOptions(heartbeatCheckInterval, emptyPushProtection, protectionWindow, ttl, distro);
    }

    public NamingOptions withDistro(Distro.Options options) {
        return new NamingOptions(heartbeatCheckInterval, emptyPushProtection, protectionWindow, emptyServiceTtl, options);
    }

    ExpiryRules expiryRules() {
        return new ExpiryRules(heartbeatCheckInterval.toMillis(), emptyPushProtection, protectionWindow.toMillis(),
                emptyServiceTtl.toMillis());
    }
}
