package io.lodestar.kv.count;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Which keyspaces the store keeps key counts of, and by which scope. A keyspace counted at depth
 * {@code n} counts its keys by their prefix up to and including their {@code n}-th NUL byte (the
 * separator of the domains' key parts): at depth 1 a key {@code tenant NUL group NUL dataId} counts
 * under {@code tenant NUL}; at depth 0 every key of the keyspace counts under one empty scope. A key
 * with fewer than {@code n} NULs is not counted.
 *
 * <p>The counts are kept by the state machine in the same write as the change, so they are part of
 * the replicated state: every member must count by the same rules (the domains declare them in
 * code). A store opened with other rules than it was counted by is counted again from its keys.
 * Immutable.
 */
public final class CountRules {
    public static final CountRules NONE = new CountRules(new TreeMap<>());
    private static final byte SEPARATOR = 0;

    private final TreeMap<String, Integer> depths;

    private CountRules(TreeMap<String, Integer> depths) {
        this.depths = depths;
    }

    /** Counts each named keyspace at its depth. */
    public static CountRules of(Map<String, Integer> depths) {
        depths.forEach((keyspace, depth) -> {
            if (depth < 0) {
                throw new IllegalArgumentException(keyspace + ": a depth is 0 or more, not " + depth);
            }
        });
        return new CountRules(new TreeMap<>(depths));
    }

    /** These rules and {@code other}'s; a keyspace both name must have one depth. */
    public CountRules and(CountRules other) {
        TreeMap<String, Integer> merged = new TreeMap<>(depths);
        other.depths.forEach((keyspace, depth) -> {
            Integer mine = merged.putIfAbsent(keyspace, depth);
            if (mine != null && !mine.equals(depth)) {
                throw new IllegalArgumentException(keyspace + " is counted at two depths: " + mine + ", " + depth);
            }
        });
        return new CountRules(merged);
    }

    public Set<String> keyspaces() {
        return depths.keySet();
    }

    public boolean counts(String keyspace) {
        return depths.containsKey(keyspace);
    }

    /** The scope {@code key} counts under: a prefix of it; null when it is not counted. */
    public byte[] scope(String keyspace, byte[] key) {
        Integer depth = depths.get(keyspace);
        if (depth == null) {
            return null;
        }
        int found = 0;
        for (int i = 0; i < key.length && found < depth; i++) {
            if (key[i] == SEPARATOR && ++found == depth) {
                return Arrays.copyOf(key, i + 1);
            }
        }
        return found == depth ? new byte[0] : null;
    }

    /**
     * Whether {@code prefix} selects whole scopes of a counted keyspace, so that the keys under it
     * are the sum of counters: empty, or ending with a NUL and holding at most the depth of them.
     */
    public boolean selectsWholeScopes(String keyspace, byte[] prefix) {
        Integer depth = depths.get(keyspace);
        if (depth == null) {
            return false;
        }
        if (prefix.length == 0) {
            return true;
        }
        int separators = 0;
        for (byte b : prefix) {
            separators += b == SEPARATOR ? 1 : 0;
        }
        return prefix[prefix.length - 1] == SEPARATOR && separators <= depth;
    }

    /** The rules as stored beside the counts: {@code keyspace:depth} pairs in keyspace order. */
    public String marker() {
        return depths.entrySet().stream()
                .map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(","));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CountRules other && depths.equals(other.depths);
    }

    @Override
    public int hashCode() {
        return depths.hashCode();
    }

    @Override
    public String toString() {
        return marker().isEmpty() ? "no counts" : marker();
    }
}
