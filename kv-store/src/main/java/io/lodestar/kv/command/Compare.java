package io.lodestar.kv.command;

import java.io.Serializable;

/**
 * A guard of a {@link Command}: the command's ops apply only if every guard holds against the
 * state the command is applied to (not the state the proposer saw).
 *
 * <p>Either on the key's modify revision ({@code 0} meaning "the key must be absent") or on the
 * MD5 of its current value bytes.
 */
public final class Compare implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String keyspace;
    private final byte[] key;
    private final long expectedModRevision;
    private final byte[] expectedValueMd5;

    private Compare(String keyspace, byte[] key, long expectedModRevision, byte[] expectedValueMd5) {
        this.keyspace = keyspace;
        this.key = key;
        this.expectedModRevision = expectedModRevision;
        this.expectedValueMd5 = expectedValueMd5;
    }

    /** Holds when the key's modify revision equals {@code modRevision}; 0 means the key is absent. */
    public static Compare modRevision(String keyspace, byte[] key, long modRevision) {
        if (modRevision < 0) {
            throw new IllegalArgumentException("modRevision must be >= 0");
        }
        return new Compare(keyspace, key, modRevision, null);
    }

    /** Holds when the key exists and the MD5 of its value bytes equals {@code md5} (16 bytes). */
    public static Compare valueMd5(String keyspace, byte[] key, byte[] md5) {
        if (md5 == null || md5.length != 16) {
            throw new IllegalArgumentException("md5 must be 16 bytes");
        }
        return new Compare(keyspace, key, -1, md5);
    }

    public String keyspace() {
        return keyspace;
    }

    public byte[] key() {
        return key;
    }

    public boolean onRevision() {
        return expectedValueMd5 == null;
    }

    public long expectedModRevision() {
        return expectedModRevision;
    }

    public byte[] expectedValueMd5() {
        return expectedValueMd5;
    }
}
