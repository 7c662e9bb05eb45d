package io.lodestar.api.udp;

/**
 * Counters of UDP push since start.
 *
 * @param subscribers subscriptions held now
 * @param pending     pushes sent and not yet acknowledged nor given up
 * @param pushes      pushes sent (each subscriber of each change counts once)
 * @param acks        pushes acknowledged by their subscriber
 * @param resends     datagrams sent again for want of an ack
 * @param failures    pushes given up after every resend went unacknowledged, or that could not be sent
 */
public record PushStats(int subscribers, int pending, long pushes, long acks, long resends, long failures) {}
