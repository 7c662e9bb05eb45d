package io.lodestar.api.auth;

/** What one operation needs of its caller; every operation declares one in {@link AccessRules}. */
public sealed interface Access {
    /** Anyone, with authentication on or off: logging in, the health probes, the metrics. */
    record Open() implements Access {}

    /** Any user who logged in. */
    record AnyUser() implements Access {}

    /** The global admin only: users, roles and permissions. */
    record Admin() implements Access {}

    /** The admin, or the user that the parameter {@code param} names (changing one's own password). */
    record AdminOrSelf(String param) implements Access {}

    /** {@code action} ({@code r} or {@code w}) on the cluster itself: membership, operator views. */
    record OnCluster(char action) implements Access {}

    /**
     * {@code action} ({@code r} or {@code w}) on every resource of the operation's typed request
     * ({@link io.lodestar.api.request.Scoped#resources()}), the very object its handler executes.
     */
    record OnResources(char action) implements Access {}
}
