package io.lodestar.api.auth;

/**
 * A user as stored: its id, the password's hash (never the password), whether it is the global
 * admin, and its generation. A token names the id and the generation it was issued for and is good
 * only while both match: the id is drawn at random when the user is created and kept for its life,
 * so a user deleted and created again under the same name is another user and none of the old
 * one's tokens proves it; the generation is raised by every password change, which retires every
 * token issued before.
 */
public record User(String username, String id, String passwordHash, boolean admin, long generation) {}
