package io.lodestar.naming.ephemeral;

/** What applying a {@link Mutation} did. */
public enum Outcome {
    /** Something a reader can see changed (instances, their fields or health, or the protected list). */
    CHANGED,
    /** The target exists and nothing visible changed (e.g. a beat of a healthy instance). */
    UNCHANGED,
    /** The addressed instance (or service) does not exist; nothing was done. */
    NOT_FOUND
}
