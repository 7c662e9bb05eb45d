package io.lodestar.api.limits;

import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/** The value of every {@link Limit} on this node: its default unless the operator set it. Immutable. */
public final class Limits {
    private final Map<Limit, Long> values;

    private Limits(Map<Limit, Long> values) {
        this.values = values;
    }

    /** Every limit at its default. */
    public static Limits defaults() {
        return parse(java.util.List.of());
    }

    /**
     * The limits with {@code settings} ({@code NAME=VALUE} each, as {@code --limit} gives them)
     * applied over the defaults.
     *
     * @throws IllegalArgumentException naming the setting that is not a known limit or not a value
     */
    public static Limits parse(Collection<String> settings) {
        Map<Limit, Long> values = new EnumMap<>(Limit.class);
        for (Limit l : Limit.values()) {
            values.put(l, l.defaultValue());
        }
        for (String setting : settings) {
            int eq = setting.indexOf('=');
            String name = eq < 0 ? setting : setting.substring(0, eq).trim();
            Limit limit = Arrays.stream(Limit.values())
                    .filter(l -> l.key().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("'" + name + "' is not a limit; the limits are "
                            + Arrays.stream(Limit.values()).map(Limit::key).collect(Collectors.joining(", "))));
            if (eq < 0) {
                throw new IllegalArgumentException("'" + setting + "' has no value: give " + name + "=VALUE");
            }
            values.put(limit, value(limit, setting.substring(eq + 1).trim()));
        }
        return new Limits(values);
    }

    private static long value(Limit limit, String text) {
        if (!limit.isBytes() && !text.matches("\\d{1,15}")) {
            throw new IllegalArgumentException(limit.key() + ": '" + text + "' is not a whole number");
        }
        try {
            return ByteSize.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(limit.key() + ": " + e.getMessage());
        }
    }

    public long get(Limit limit) {
        return values.get(limit);
    }

    /** The value as an int, for the settings that take one; larger values mean "as many as an int holds". */
    public int intValue(Limit limit) {
        return (int) Math.min(Integer.MAX_VALUE, values.get(limit));
    }

    /** The value of a quota, where 0 means none: as many as a long counts. */
    public long quota(Limit limit) {
        long value = values.get(limit);
        return value == 0 ? Long.MAX_VALUE : value;
    }

    /** A copy with one limit changed, for tests and embedding. */
    public Limits with(Limit limit, long value) {
        Map<Limit, Long> copy = new EnumMap<>(values);
        copy.put(limit, value);
        return new Limits(copy);
    }

    @Override
    public String toString() {
        return values.entrySet().stream()
                .map(e -> e.getKey().key() + "=" + e.getValue())
                .collect(Collectors.joining(", "));
    }
}
