package io.lodestar.kv.command;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * The unit of replication: guards and ops applied atomically, as one Raft log entry.
 *
 * <p>If every {@link Compare} holds, every {@link Op} is applied and the store's revision grows by
 * one (if at least one op changed something); otherwise nothing is applied and the result says
 * the compare failed. Put, delete, compare-and-put and batch are all shapes of this one class.
 */
public final class Command implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The classes an encoded command may name: the allowlist of every decoder of commands. */
    public static final Set<Class<?>> CLASSES = Set.of(Command.class, Compare.class, Op.class, Cap.class);

    private static final Compare[] NO_COMPARES = new Compare[0];

    private final Compare[] compares;
    private final Op[] ops;

    private Command(Compare[] compares, Op[] ops) {
        this.compares = compares;
        this.ops = ops;
    }

    public static Command of(List<Compare> compares, List<Op> ops) {
        return new Command(compares.toArray(NO_COMPARES), ops.toArray(new Op[0]));
    }

    public static Command put(String keyspace, byte[] key, byte[] value) {
        return new Command(NO_COMPARES, new Op[] {Op.put(keyspace, key, value)});
    }

    public static Command delete(String keyspace, byte[] key) {
        return new Command(NO_COMPARES, new Op[] {Op.delete(keyspace, key)});
    }

    /** Puts only if the key's modify revision is {@code expected} (0: only if absent). */
    public static Command putIfRevision(String keyspace, byte[] key, byte[] value, long expected) {
        return new Command(
                new Compare[] {Compare.modRevision(keyspace, key, expected)}, new Op[] {Op.put(keyspace, key, value)});
    }

    /** Puts only if the key exists and its current value's MD5 is {@code md5}. */
    public static Command putIfValueMd5(String keyspace, byte[] key, byte[] value, byte[] md5) {
        return new Command(
                new Compare[] {Compare.valueMd5(keyspace, key, md5)}, new Op[] {Op.put(keyspace, key, value)});
    }

    /** Several ops applied atomically, unguarded. */
    public static Command batch(List<Op> ops) {
        return new Command(NO_COMPARES, ops.toArray(new Op[0]));
    }

    /** A read-only view (no copy: this is on the apply path). */
    public List<Compare> compares() {
        return compares == null ? List.of() : Collections.unmodifiableList(Arrays.asList(compares));
    }

    /** A read-only view (no copy: this is on the apply path). */
    public List<Op> ops() {
        return ops == null ? List.of() : Collections.unmodifiableList(Arrays.asList(ops));
    }
}
