package io.lodestar.api.auth;

import java.util.Set;

/** The store keyspaces authentication owns. */
public final class AuthKeyspaces {
    /** Users by name: {@link UserCodec}. */
    public static final String USERS = "auth_users";
    /** The cluster's token signing key, generated at first start: {@link TokenKey}. */
    public static final String KEYS = "auth_keys";

    public static final Set<String> ALL = Set.of(USERS, KEYS);

    private AuthKeyspaces() {}
}
