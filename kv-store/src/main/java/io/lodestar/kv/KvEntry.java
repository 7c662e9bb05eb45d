package io.lodestar.kv;

/**
 * A key's current value with the revision that created it and the one that last modified it.
 * Revisions are the store's global counter, identical on every replica.
 */
public record KvEntry(byte[] key, byte[] value, long createRevision, long modRevision) {}
