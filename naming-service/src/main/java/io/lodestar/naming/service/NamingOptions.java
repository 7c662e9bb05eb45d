package io.lodestar.naming.service;

import io.lodestar.naming.NamingQuotas;
import io.lodestar.naming.distro.Distro;
import io.lodestar.naming.ephemeral.ExpiryRules;
import java.time.Duration;

/**
 * Tunables of the registry.
 *
 * @param heartbeatCheckInterval how often ephemeral instances are checked for missed beats (Nacos: 5 s)
 * @param emptyServiceTtl        how long a service that only existed through ephemeral instances is
 *                               kept once it has none (Nacos 2.x: 60 s)
 * @param distro                 timing of the replication of ephemeral instances between members
 * @param quotas                 how much the registry holds at most
 */
public record NamingOptions(
        Duration heartbeatCheckInterval, Duration emptyServiceTtl, Distro.Options distro, NamingQuotas quotas) {
    public static final NamingOptions DEFAULT =
            new NamingOptions(Duration.ofSeconds(5), Duration.ofSeconds(60), Distro.Options.DEFAULT, NamingQuotas.NONE);

    public NamingOptions withHeartbeatCheckInterval(Duration interval) {
        return new NamingOptions(interval, emptyServiceTtl, distro, quotas);
    }

    public NamingOptions withEmptyServiceTtl(Duration ttl) {
        return new NamingOptions(heartbeatCheckInterval, ttl, distro, quotas);
    }

    public NamingOptions withDistro(Distro.Options options) {
        return new NamingOptions(heartbeatCheckInterval, emptyServiceTtl, options, quotas);
    }

    public NamingOptions withQuotas(NamingQuotas quotas) {
        return new NamingOptions(heartbeatCheckInterval, emptyServiceTtl, distro, quotas);
    }

    ExpiryRules expiryRules() {
        return new ExpiryRules(heartbeatCheckInterval.toMillis(), emptyServiceTtl.toMillis());
    }
}
