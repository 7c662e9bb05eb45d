package io.lodestar.api.udp;

import java.time.Duration;

/**
 * Tunables of UDP push.
 *
 * @param resends        how many times an unacknowledged push is sent again before giving up
 * @param resendInterval how long to wait for an ack before each resend (and before giving up)
 * @param subscriberTtl  how long a subscriber stays without a list query renewing it
 * @param maxSubscribers subscriptions held at most (service, address, port, clusters); list queries
 *                       beyond it are answered but not subscribed, so those clients poll
 * @param maxSubscribersPerAddress subscriptions held at most for one client address, so that one
 *                       address cannot take the room every other client's pushes need
 */
public record UdpPushSettings(
        int resends,
        Duration resendInterval,
        Duration subscriberTtl,
        int maxSubscribers,
        int maxSubscribersPerAddress) {
    /**
     * Three resends one second apart, as Nacos. Subscribers live 90 s: a 1.4.7 client re-polls
     * every {@code cacheMillis} (10 s) while the service has instances, but backs off to one poll a
     * minute while it is empty (its update task doubles the delay from 1 s on every empty answer,
     * up to 60 s); a shorter life would drop exactly the clients waiting for a service to appear.
     */
    public static final UdpPushSettings DEFAULT =
            new UdpPushSettings(3, Duration.ofSeconds(1), Duration.ofSeconds(90), 100_000, 5_000);

    public UdpPushSettings {
        if (resends < 0
                || resendInterval.isNegative()
                || resendInterval.isZero()
                || subscriberTtl.isNegative()
                || subscriberTtl.isZero()
                || maxSubscribers < 0
                || maxSubscribersPerAddress < 0) {
            throw new IllegalArgumentException("invalid UDP push settings: " + resends + ", " + resendInterval + ", "
                    + subscriberTtl + ", " + maxSubscribers + ", " + maxSubscribersPerAddress);
        }
    }

    /** These settings holding at most {@code total} subscriptions, {@code perAddress} for one address. */
    public UdpPushSettings withCaps(int total, int perAddress) {
        return new UdpPushSettings(resends, resendInterval, subscriberTtl, total, perAddress);
    }
}
