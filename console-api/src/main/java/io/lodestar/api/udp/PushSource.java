package io.lodestar.api.udp;

import io.lodestar.naming.model.ServiceKey;

/** What a push carries: the instance list a subscriber would get from a list query. */
@FunctionalInterface
public interface PushSource {
    /**
     * The instance-list JSON of {@code service} for a subscriber that asked for {@code clusters}
     * (the query's string, echoed in the list). Called on the push thread; may throw, then that
     * push is skipped (the client still polls).
     */
    String listJson(ServiceKey service, String clusters);
}
