package io.lodestar.api.cli.migrate;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lodestar.api.cli.client.Output;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a migration, item by item: each change as it is made (or, in a dry run, would
 * be), counts per kind and outcome, and every failure with its reason. Not thread-safe: one
 * migration, one thread.
 */
public final class Summary {
    /** The kinds of item, in the order they are copied and reported. */
    public enum Kind {
        NAMESPACES,
        CONFIGS,
        BETAS,
        SERVICES,
        INSTANCES,
        USERS,
        ROLES,
        PERMISSIONS;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public enum Outcome {
        CREATED,
        UPDATED,
        UNCHANGED,
        FAILED
    }

    /** One item that changed, would change, or failed. */
    public record Line(Kind kind, Outcome outcome, String item, String detail) {}

    private final boolean dryRun;
    private final Map<Kind, Map<Outcome, Integer>> counts = new EnumMap<>(Kind.class);
    private final List<Line> changes = new ArrayList<>();
    private final List<Line> failures = new ArrayList<>();

    public Summary(boolean dryRun) {
        this.dryRun = dryRun;
        for (Kind k : Kind.values()) {
            Map<Outcome, Integer> m = new EnumMap<>(Outcome.class);
            for (Outcome o : Outcome.values()) {
                m.put(o, 0);
            }
            counts.put(k, m);
        }
    }

    /** Records the plan {@code diff} for {@code item} as carried out (or, in a dry run, as it would be). */
    public Line record(Kind kind, String item, Diff diff) {
        Outcome outcome = switch (diff.action()) {
            case CREATE -> Outcome.CREATED;
            case UPDATE -> Outcome.UPDATED;
            case UNCHANGED -> Outcome.UNCHANGED;
        };
        return add(kind, outcome, item, diff.fields().isEmpty() ? "" : String.join(", ", diff.fields()));
    }

    public Line failed(Kind kind, String item, String reason) {
        return add(kind, Outcome.FAILED, item, reason);
    }

    private Line add(Kind kind, Outcome outcome, String item, String detail) {
        counts.get(kind).merge(outcome, 1, Integer::sum);
        Line line = new Line(kind, outcome, item, detail);
        if (outcome == Outcome.FAILED) {
            failures.add(line);
        } else if (outcome != Outcome.UNCHANGED) {
            changes.add(line);
        }
        return line;
    }

    public int count(Kind kind, Outcome outcome) {
        return counts.get(kind).get(outcome);
    }

    public boolean anyFailed() {
        return !failures.isEmpty();
    }

    public List<Line> failures() {
        return List.copyOf(failures);
    }

    public List<Line> changes() {
        return List.copyOf(changes);
    }

    /** How a change is printed as it happens: {@code created configs dev/G/a (content)}, or {@code would create ...}. */
    public String describe(Line line) {
        String verb = switch (line.outcome()) {
            case CREATED -> dryRun ? "would create" : "created";
            case UPDATED -> dryRun ? "would update" : "updated";
            case UNCHANGED -> "unchanged";
            case FAILED -> "FAILED";
        };
        return verb + " " + singular(line.kind()) + " " + line.item()
                + (line.detail().isEmpty()
                        ? ""
                        : (line.outcome() == Outcome.FAILED ? ": " : " (")
                                + line.detail()
                                + (line.outcome() == Outcome.FAILED ? "" : ")"));
    }

    private static String singular(Kind kind) {
        String label = kind.label();
        return label.substring(0, label.length() - 1);
    }

    /**
     * The table of counts (one row per kind), then each failure with its reason; as JSON, one
     * object with {@code dryRun}, {@code changes}, {@code summary} and {@code failures}.
     */
    public void print(Output out, PrintStream stdout) {
        ArrayNode rows = Output.rows();
        for (Kind k : Kind.values()) {
            ObjectNode row = Output.row().put("kind", k.label());
            for (Outcome o : Outcome.values()) {
                row.put(o.name().toLowerCase(java.util.Locale.ROOT), count(k, o));
            }
            rows.add(row);
        }
        if (out.json()) {
            ObjectNode all = Output.row().put("dryRun", dryRun);
            all.set("changes", lines(changes));
            all.set("summary", rows);
            all.set("failures", lines(failures));
            out.object(all);
            return;
        }
        if (dryRun) {
            stdout.println("dry run: nothing was written; the counts say what a migration would do");
        }
        out.table(rows, "kind", "created", "updated", "unchanged", "failed");
        for (Line f : failures) {
            stdout.println("failed " + singular(f.kind()) + " " + f.item() + ": " + f.detail());
        }
    }

    private static ArrayNode lines(List<Line> lines) {
        ArrayNode a = Output.rows();
        for (Line l : lines) {
            a.add(Output.row()
                    .put("kind", l.kind().label())
                    .put("outcome", l.outcome().name().toLowerCase(java.util.Locale.ROOT))
                    .put("item", l.item())
                    .put("detail", l.detail()));
        }
        return a;
    }
}
