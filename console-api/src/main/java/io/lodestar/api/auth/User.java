package io.lodestar.api.auth;

/**
 * A user as stored: the password's hash (never the password), whether it is the global admin, and
 * its generation, raised by every password change: a token names the generation it was issued
 * for, so a new password (or a deleted user) retires every token issued before.
 */
public record User(String username, String passwordHash, boolean admin, long generation) {}
