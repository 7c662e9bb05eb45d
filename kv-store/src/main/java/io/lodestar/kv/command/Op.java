package io.lodestar.kv.command;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One mutation inside a {@link Command}: a put of a value or a delete of a key in a keyspace.
 *
 * <p>Encoded with Hessian; the kind is a byte, not an enum, so the wire form names no class but
 * this one.
 */
public final class Op implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final byte PUT = 1;
    public static final byte DELETE = 2;

    private final byte kind;
    private final String keyspace;
    private final byte[] key;
    private final byte[] value;

    private Op(byte kind, String keyspace, byte[] key, byte[] value) {
        this.kind = kind;
        this.keyspace = keyspace;
        this.key = key;
        this.value = value;
    }

    public static Op put(String keyspace, byte[] key, byte[] value) {
        return new Op(PUT, keyspace, key, value);
    }

    public static Op delete(String keyspace, byte[] key) {
        return new Op(DELETE, keyspace, key, null);
    }

    public byte kind() {
        return kind;
    }

    public boolean isPut() {
        return kind == PUT;
    }

    public String keyspace() {
        return keyspace;
    }

    public byte[] key() {
        return key;
    }

    /** The new value for a put; null for a delete. */
    public byte[] value() {
        return value;
    }

    @Override
    public String toString() {
        return (kind == PUT ? "put " : "delete ") + keyspace + "/" + Arrays.toString(key);
    }
}
