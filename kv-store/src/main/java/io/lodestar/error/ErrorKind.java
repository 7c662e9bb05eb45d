package io.lodestar.error;

/**
 * What went wrong, as a client must tell it apart: whether to fix the request, look elsewhere,
 * retry, or check what happened. Each protocol maps a kind to its own status and code in one table
 * (the API layer's {@code ErrorMapping}); nothing else decides a status.
 */
public enum ErrorKind {
    /** The request is malformed or out of bounds; nothing was written. Fix the request. */
    INVALID,
    /** A required parameter was not sent; nothing was written. */
    MISSING,
    /** Well-formed, but the current state refuses it (a service that exists, one still in use); nothing was written. */
    REFUSED,
    /** The caller did not prove who it is (no token, a bad or expired one, a failed login). Log in again. */
    UNAUTHENTICATED,
    /** The caller proved who it is, and that caller may not do this. */
    FORBIDDEN,
    /** The resource the request names does not exist. */
    NOT_FOUND,
    /** A compare-and-set lost: the resource changed since the caller read it, or still holds what it must not; nothing was written. */
    CONFLICT,
    /** The request is larger than a limit allows (a body, a message, a set); nothing was written. Send less. */
    TOO_LARGE,
    /** A limit on how many of something a client or the node may hold at once is reached; nothing was written. Retry later or hold fewer. */
    TOO_MANY,
    /** The cluster cannot serve this now (no leader, starting, disk full); nothing was written. Retry, here or elsewhere. */
    UNAVAILABLE,
    /** A write that may or may not have been applied (no answer in time): read before retrying it. */
    OUTCOME_UNKNOWN
}
