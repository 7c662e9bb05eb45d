package io.lodestar.api.cli.migrate;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What copying one item would do: create it (the target has none), update it (naming the fields
 * that differ), or nothing. Items are {@link Items} records, normalized when built, so a field
 * differs exactly when its normalized values differ. Pure: reads nothing, writes nothing.
 */
public record Diff(Action action, List<String> fields) {
    public enum Action {
        CREATE,
        UPDATE,
        UNCHANGED
    }

    static final Diff CREATE = new Diff(Action.CREATE, List.of());
    static final Diff UNCHANGED = new Diff(Action.UNCHANGED, List.of());

    /** The plan for {@code source} against the target's copy, comparing every field but {@code ignored}. */
    public static <T extends Record> Diff of(T source, Optional<T> target, Set<String> ignored) {
        if (target.isEmpty()) {
            return CREATE;
        }
        List<String> differ = differing(source, target.get(), ignored);
        return differ.isEmpty() ? UNCHANGED : new Diff(Action.UPDATE, differ);
    }

    public static <T extends Record> Diff of(T source, Optional<T> target) {
        return of(source, target, Set.of());
    }

    /** The names of the record components whose values differ, in declaration order. */
    static List<String> differing(Record a, Record b, Set<String> ignored) {
        if (a.getClass() != b.getClass()) {
            throw new IllegalArgumentException(a.getClass() + " against " + b.getClass());
        }
        List<String> differ = new ArrayList<>();
        for (RecordComponent c : a.getClass().getRecordComponents()) {
            if (!ignored.contains(c.getName()) && !Objects.equals(value(c, a), value(c, b))) {
                differ.add(c.getName());
            }
        }
        return differ;
    }

    private static Object value(RecordComponent c, Record r) {
        try {
            return c.getAccessor().invoke(r);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Combines the plans of one item's parts (a service and its clusters): created wins, then updated. */
    Diff and(Diff other) {
        if (action == Action.CREATE || other.action == Action.CREATE) {
            return CREATE;
        }
        if (action == Action.UNCHANGED) {
            return other;
        }
        if (other.action == Action.UNCHANGED) {
            return this;
        }
        List<String> all = new ArrayList<>(fields);
        other.fields.stream().filter(f -> !all.contains(f)).forEach(all::add);
        return new Diff(Action.UPDATE, all);
    }
}
