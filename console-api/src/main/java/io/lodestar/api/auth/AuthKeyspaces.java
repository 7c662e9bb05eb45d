package io.lodestar.api.auth;

import java.util.Set;

/** The store keyspaces authentication owns. */
public final class AuthKeyspaces {
    /** Users by name: {@link UserCodec}. */
    public static final String USERS = "auth_users";
    /** The cluster's token signing key, generated at first start: {@link TokenKey}. */
    public static final String KEYS = "auth_keys";
    /** Which users have which roles: {@code username NUL role}, no value ({@link Grants}). */
    public static final String ROLES = "auth_roles";
    /** What each role may do: {@code role NUL resource NUL action}, no value ({@link Grants}). */
    public static final String PERMISSIONS = "auth_permissions";

    public static final Set<String> ALL = Set.of(USERS, KEYS, ROLES, PERMISSIONS);

    private AuthKeyspaces() {}
}
