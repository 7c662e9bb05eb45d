package io.lodestar.api.auth;

import io.lodestar.api.http.CheckedRequest;
import java.util.List;
import java.util.function.Function;

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

    /**
     * {@code action} ({@code r} or {@code w}) on every resource the request names, read from it by
     * {@code resources} (which refuses a request it cannot read, as its endpoint would).
     */
    record On(char action, Function<CheckedRequest, List<Resources.Resource>> resources) implements Access {}
}
