package io.lodestar.kv.command;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One mutation inside a {@link Command}: a put of a value or a delete of a key in a keyspace.
 *
 * <p>Encoded with Hessian; the kind is a byte, not an enum, so the wire form names no class but
 * this one (and {@link Cap} when a put carries one). An op encoded before caps existed decodes
 * without one.
 */
public final class Op implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final byte PUT = 1;
    public static final byte DELETE = 2;
    /** A put whose key is the given prefix followed by the command's revision (8 bytes, big-endian). */
    public static final byte PUT_AT_REVISION = 3;

    private final byte kind;
    private final String keyspace;
    private final byte[] key;
    private final byte[] value;
    private final Cap cap;

    private Op(byte kind, String keyspace, byte[] key, byte[] value, Cap cap) {
        this.kind = kind;
        this.keyspace = keyspace;
        this.key = key;
        this.value = value;
        this.cap = cap;
    }

    public static Op put(String keyspace, byte[] key, byte[] value) {
        return new Op(PUT, keyspace, key, value, null);
    }

    /**
     * Appends under {@code prefix}: the stored key is the prefix followed by the revision this
     * command gets (8 bytes, big-endian), so entries under one prefix are unique and in commit
     * order, identical on every replica. For logs such as config history.
     */
    public static Op putAtRevision(String keyspace, byte[] prefix, byte[] value) {
        return new Op(PUT_AT_REVISION, keyspace, prefix, value, null);
    }

    public static Op delete(String keyspace, byte[] key) {
        return new Op(DELETE, keyspace, key, null, null);
    }

    /**
     * This put, refused (with its whole command) if it creates its key in a scope that {@code cap}
     * says is full; the keyspace must be counted ({@link io.lodestar.kv.count.CountRules}).
     */
    public Op withCap(Cap cap) {
        return new Op(kind, keyspace, key, value, cap);
    }

    public byte kind() {
        return kind;
    }

    /** A put or a put at revision: carries a value. */
    public boolean isPut() {
        return kind == PUT || kind == PUT_AT_REVISION;
    }

    public String keyspace() {
        return keyspace;
    }

    /** The key; for {@link #PUT_AT_REVISION} the prefix of the key. */
    public byte[] key() {
        return key;
    }

    /** The new value for a put; null for a delete. */
    public byte[] value() {
        return value;
    }

    /** The bound on the key's scope, or null. */
    public Cap cap() {
        return cap;
    }

    @Override
    public String toString() {
        String verb = kind == PUT ? "put " : kind == DELETE ? "delete " : "put-at-revision ";
        return verb + keyspace + "/" + Arrays.toString(key) + (cap == null ? "" : " capped " + cap);
    }
}
