package io.lodestar.it;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Checks a recorded history of config operations (publish, compare-and-publish, read) against one
 * total order of writes.
 *
 * <p><b>Model.</b> Every config (key) is a register. Every publish writes a value no other
 * operation writes, so a value (and its md5) names the operation that wrote it. Each operation is
 * recorded with the time it was sent and the time its answer came (System.nanoTime of the one
 * test JVM) and an outcome: {@code OK} (200 {@code true}, or a read's answer), {@code FAIL}
 * (definitely no effect: 409, 503, or the connection was refused so nothing was sent) or {@code
 * INFO} (may or may not have taken effect: 504, no answer, client timeout).
 *
 * <p><b>The order.</b> The total order checked against is the server's own record: per key, the
 * config history (one entry per publish, in store-revision order, each holding the md5 of the
 * content it replaced, or of its own for the first insert) plus the current content gives the
 * sequence of values installed and the revision of each. It is not taken on trust: rule 1 demands
 * that every node report the same one, and every other rule checks it against what the clients
 * saw.
 *
 * <p><b>Rules</b> (a violation names its rule):
 * <ol>
 *   <li><b>one order</b>: every node reports the same sequence of (revision, value) per key.</li>
 *   <li><b>acknowledged writes survive</b>: every {@code OK} publish or compare-and-publish is in
 *       its key's order.</li>
 *   <li><b>failed writes have no effect</b>: no {@code FAIL} write is in the order.</li>
 *   <li><b>no phantoms, no duplicates</b>: every value in the order was written by an operation of
 *       the history on that key, and appears once (twice would be one request applied twice).</li>
 *   <li><b>real-time order of writes</b>: if write A was acknowledged before write B was sent, A's
 *       revision is lower than B's (across keys too: revisions are global). Only acknowledged A
 *       count: a 504 write may commit after its answer.</li>
 *   <li><b>compare-and-publish chains</b>: the value before every compare-and-publish in the order
 *       is the one it expected (so no two succeed from the same md5).</li>
 *   <li><b>reads return written values</b>: a read returns a value of its key's order (never a
 *       failed or unknown write's value that did not take effect, never nothing: every key was
 *       written before the reads began and nothing deletes).</li>
 *   <li><b>no reads from the future</b>: a read never answers before the write of its value was
 *       sent.</li>
 *   <li><b>per-node monotonic reads and read-your-writes</b>: reads are served from the local
 *       replica, which may lag, so a read need not see the latest write; but a node applies the log
 *       in order and durably, and answers a write only once it applied it. So a read on node N
 *       sent after N acknowledged write W, or after N answered a read with value V, returns W / V or
 *       a later value.</li>
 *   <li><b>eventual visibility</b>: after the faults are healed and the nodes converged, every
 *       node serves the last value of each key's order.</li>
 *   <li><b>clear errors</b>: a failed write is a 409 (compare-and-publish only), 503, 504 or no
 *       answer; never a 500 or another status.</li>
 * </ol>
 * Reads are not checked against real time across nodes (a follower may legitimately serve a value
 * overwritten before the read was sent: such stale reads are counted in the stats), and a 409 is not required to be justified: the server
 * compares a compare-and-publish's md5 with the receiving node's replica first. A 409 answered
 * while the committed value provably was the expected one all along is reported as an
 * <em>anomaly</em> (printed, not failed): a false conflict, which is safe but is not linearizable.
 */
final class HistoryChecker {
    enum Kind {
        WRITE,
        CAS,
        READ
    }

    enum Outcome {
        OK,
        FAIL,
        INFO
    }

    /**
     * One operation. {@code value}: the value written (WRITE, CAS) or read (null: absent);
     * {@code expected}: what a CAS compared with; {@code status}: the HTTP status, -1 without one.
     */
    record Op(
            int id,
            String client,
            Kind kind,
            String key,
            String node,
            String value,
            String expected,
            long invokeNanos,
            long completeNanos,
            Outcome outcome,
            int status,
            String detail) {
        boolean isWrite() {
            return kind != Kind.READ;
        }

        @Override
        public String toString() {
            return "#" + id + " " + client + " " + kind + " " + key
                    + (expected == null ? "" : " from '" + expected + "'")
                    + (value == null ? " (absent)" : " '" + value + "'") + " via " + node + " -> " + outcome
                    + (status == 200 ? "" : " " + status)
                    + (detail == null || detail.isEmpty() ? "" : " [" + abbreviate(detail) + "]");
        }
    }

    /** A value the server installed, at a store revision. */
    record Installed(long revision, String value) {}

    /** One entry of the server's config history: its id (revision), opType and md5 of the recorded content. */
    record HistoryEntry(long id, String opType, String md5) {}

    record Report(List<String> violations, List<String> anomalies, Map<String, Integer> stats) {}

    private HistoryChecker() {}

    /**
     * The values installed on one key, in order, from the server's config history of that key (any
     * order of entries) and its current md5. {@code values} maps the md5 of every value any
     * operation wrote to that value; an md5 nobody wrote becomes {@code "<unknown md5 ...>"}.
     */
    static List<Installed> installedOrder(List<HistoryEntry> history, String currentMd5, Map<String, String> values) {
        List<HistoryEntry> entries = new ArrayList<>(history);
        entries.sort(Comparator.comparingLong(HistoryEntry::id));
        List<Installed> order = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            HistoryEntry e = entries.get(i);
            if (i == 0 && !e.opType().equals("I")) {
                throw new AssertionError("the first history entry is not an insert: " + e);
            }
            if (i > 0 && !e.opType().equals("U")) {
                throw new AssertionError("unexpected history entry (nothing deletes): " + e);
            }
            // an insert records its own content, an update the content it replaced
            String md5 = i == 0
                    ? e.md5()
                    : i + 1 < entries.size() ? entries.get(i + 1).md5() : currentMd5;
            order.add(new Installed(e.id(), values.getOrDefault(md5, "<unknown md5 " + md5 + ">")));
        }
        if (entries.size() >= 2 && !entries.get(1).md5().equals(entries.get(0).md5())) {
            throw new AssertionError("the first update did not replace the inserted content: " + entries.subList(0, 2));
        }
        return order;
    }

    /**
     * @param ops          every operation, final reads included
     * @param orderByNode  node -> key -> installed values in order, as each node reports it
     * @param finalReads   node -> key -> value read after convergence
     */
    static Report check(
            List<Op> ops,
            Map<String, Map<String, List<Installed>>> orderByNode,
            Map<String, Map<String, String>> finalReads) {
        List<String> violations = new ArrayList<>();
        List<String> anomalies = new ArrayList<>();

        // 1. one order
        Map<String, List<Installed>> order = null;
        String reference = null;
        for (Map.Entry<String, Map<String, List<Installed>>> e : orderByNode.entrySet()) {
            if (order == null) {
                order = e.getValue();
                reference = e.getKey();
            } else if (!order.equals(e.getValue())) {
                violations.add("[1 one order] " + e.getKey() + " reports another order than " + reference + ": "
                        + firstDifference(order, e.getValue()));
            }
        }
        Objects.requireNonNull(order, "no order");

        Map<String, Op> writerOf = new HashMap<>();
        for (Op op : ops) {
            if (op.isWrite() && writerOf.put(op.value(), op) != null) {
                throw new IllegalArgumentException("two writes of " + op.value() + ": values must be unique");
            }
        }
        Map<String, Integer> position = new HashMap<>();
        Map<String, Long> revision = new HashMap<>();
        for (Map.Entry<String, List<Installed>> e : order.entrySet()) {
            List<Installed> installed = e.getValue();
            for (int i = 0; i < installed.size(); i++) {
                String v = installed.get(i).value();
                // 4. no phantoms, no duplicates
                if (position.putIfAbsent(v, i) != null) {
                    violations.add("[4 no duplicates] '" + v + "' installed twice on " + e.getKey() + " (revisions "
                            + revision.get(v) + " and " + installed.get(i).revision() + ")");
                }
                revision.putIfAbsent(v, installed.get(i).revision());
                Op w = writerOf.get(v);
                if (w == null || !w.key().equals(e.getKey())) {
                    violations.add("[4 no phantoms] " + e.getKey() + " holds '" + v + "' at revision "
                            + installed.get(i).revision() + ", which no operation wrote on that key");
                }
            }
        }

        for (Op op : ops) {
            if (!op.isWrite()) {
                continue;
            }
            boolean installed = position.containsKey(op.value());
            // 2. acknowledged writes survive; 3. failed writes have no effect
            if (op.outcome() == Outcome.OK && !installed) {
                violations.add("[2 acknowledged writes survive] lost: " + op);
            }
            if (op.outcome() == Outcome.FAIL && installed) {
                violations.add("[3 failed writes have no effect] took effect at revision " + revision.get(op.value())
                        + ": " + op);
            }
            // 11. clear errors
            if (op.outcome() != Outcome.OK
                    && !(op.status() == 409 && op.kind() == Kind.CAS)
                    && op.status() != 503
                    && op.status() != 504
                    && op.status() != -1) {
                violations.add("[11 clear errors] unexpected answer: " + op);
            }
            // 6. compare-and-publish chains
            if (op.kind() == Kind.CAS && installed) {
                List<Installed> seq = order.get(op.key());
                int p = position.get(op.value());
                String before = p == 0 ? null : seq.get(p - 1).value();
                if (!op.expected().equals(before)) {
                    violations.add("[6 compare-and-publish chains] installed over '" + before + "', expected '"
                            + op.expected() + "': " + op);
                }
            }
        }

        // 5. real-time order of writes
        List<Op> acknowledged = ops.stream()
                .filter(o -> o.isWrite() && o.outcome() == Outcome.OK && position.containsKey(o.value()))
                .sorted(Comparator.comparingLong(Op::completeNanos))
                .toList();
        List<Op> installedWrites = ops.stream()
                .filter(o -> o.isWrite() && position.containsKey(o.value()))
                .sorted(Comparator.comparingLong(Op::invokeNanos))
                .toList();
        Op latest = null;
        int next = 0;
        for (Op b : installedWrites) {
            while (next < acknowledged.size() && acknowledged.get(next).completeNanos() < b.invokeNanos()) {
                Op a = acknowledged.get(next++);
                if (latest == null || revision.get(a.value()) > revision.get(latest.value())) {
                    latest = a;
                }
            }
            if (latest != null && revision.get(b.value()) < revision.get(latest.value())) {
                violations.add(
                        "[5 real-time order] " + b + " (revision " + revision.get(b.value()) + ") was sent after "
                                + latest + " (revision " + revision.get(latest.value()) + ") was acknowledged");
            }
        }

        // 6 (explicit). no two compare-and-publishes succeed from the same value
        Map<String, Op> casFrom = new HashMap<>();
        for (Op op : ops) {
            if (op.kind() == Kind.CAS && op.outcome() == Outcome.OK) {
                Op other = casFrom.put(op.key() + "\u0000" + op.expected(), op);
                if (other != null) {
                    violations.add("[6 compare-and-publish chains] two succeeded from '" + op.expected() + "': " + other
                            + " and " + op);
                }
            }
        }

        // anomaly: a 409 while the committed value was the expected one throughout the request
        for (Op op : ops) {
            if (op.kind() != Kind.CAS || op.outcome() != Outcome.FAIL || op.status() != 409) {
                continue;
            }
            Integer p = position.get(op.expected());
            Op installer = writerOf.get(op.expected());
            if (p == null
                    || installer == null
                    || installer.outcome() != Outcome.OK
                    || installer.completeNanos() >= op.invokeNanos()) {
                continue;
            }
            List<Installed> seq = order.get(op.key());
            Op successor = p + 1 < seq.size() ? writerOf.get(seq.get(p + 1).value()) : null;
            if (p + 1 >= seq.size() || (successor != null && successor.invokeNanos() > op.completeNanos())) {
                anomalies.add("[false conflict] 409 although '" + op.expected() + "' (acknowledged by "
                        + installer.node() + " before this was sent) was not replaced until after the answer: " + op);
            }
        }

        // 7, 8, 9, 10: reads
        Map<String, List<Op>> byNodeAndKey = new TreeMap<>();
        for (Op op : ops) {
            if (op.outcome() == Outcome.OK) {
                byNodeAndKey
                        .computeIfAbsent(op.node() + " " + op.key(), k -> new ArrayList<>())
                        .add(op);
            }
        }
        for (Op r : ops) {
            if (r.kind() != Kind.READ || r.outcome() != Outcome.OK) {
                continue;
            }
            if (r.value() == null) {
                violations.add("[7 reads return written values] nothing read: " + r);
                continue;
            }
            Integer p = position.get(r.value());
            Op w = writerOf.get(r.value());
            if (p == null || w == null || !w.key().equals(r.key())) {
                violations.add("[7 reads return written values] read a value not in the order"
                        + (w == null ? "" : " (written by " + w + ")") + ": " + r);
                continue;
            }
            if (w.invokeNanos() > r.completeNanos()) {
                violations.add("[8 no reads from the future] " + r + " answered before " + w + " was sent");
            }
            Op bound = null;
            int boundPosition = -1;
            for (Op earlier : byNodeAndKey.get(r.node() + " " + r.key())) {
                if (earlier.completeNanos() < r.invokeNanos() && earlier.value() != null) {
                    Integer q = position.get(earlier.value());
                    if (q != null && q > boundPosition) {
                        boundPosition = q;
                        bound = earlier;
                    }
                }
            }
            if (p < boundPosition) {
                violations.add("[9 per-node monotonic reads] " + r + " returned position " + p + ", but " + r.node()
                        + " had already answered " + bound + " (position " + boundPosition + ")");
            }
        }

        // 10. eventual visibility
        for (Map.Entry<String, Map<String, String>> node : finalReads.entrySet()) {
            for (Map.Entry<String, List<Installed>> e : order.entrySet()) {
                List<Installed> seq = e.getValue();
                String last = seq.isEmpty() ? null : seq.get(seq.size() - 1).value();
                String read = node.getValue().get(e.getKey());
                if (!Objects.equals(last, read)) {
                    violations.add("[10 eventual visibility] " + node.getKey() + " serves '" + read + "' for "
                            + e.getKey() + " after convergence, the order ends with '" + last + "'");
                }
            }
        }

        // not a rule: reads of a value already overwritten by a write acknowledged before the read was sent
        int stale = 0;
        Map<String, long[]> firstAckAfter = new HashMap<>();
        for (Map.Entry<String, List<Installed>> e : order.entrySet()) {
            List<Installed> seq = e.getValue();
            long[] suffixMin = new long[seq.size() + 1];
            suffixMin[seq.size()] = Long.MAX_VALUE;
            for (int i = seq.size() - 1; i >= 0; i--) {
                Op w = writerOf.get(seq.get(i).value());
                long acked = w != null && w.outcome() == Outcome.OK ? w.completeNanos() : Long.MAX_VALUE;
                suffixMin[i] = Math.min(suffixMin[i + 1], acked);
            }
            firstAckAfter.put(e.getKey(), suffixMin);
        }
        for (Op r : ops) {
            Integer p = r.kind() == Kind.READ && r.outcome() == Outcome.OK && r.value() != null
                    ? position.get(r.value())
                    : null;
            long[] suffixMin = p == null ? null : firstAckAfter.get(r.key());
            if (suffixMin != null && p + 1 < suffixMin.length && suffixMin[p + 1] < r.invokeNanos()) {
                stale++;
            }
        }

        Map<String, Integer> stats = new LinkedHashMap<>();
        stats.put("READ stale (allowed: reads are local)", stale);
        for (Op op : ops) {
            stats.merge(
                    op.kind() + " " + op.outcome() + (op.status() == 200 ? "" : " " + op.status()), 1, Integer::sum);
        }
        stats = new TreeMap<>(stats);
        for (Map.Entry<String, List<Installed>> e : order.entrySet()) {
            stats.put("installed on " + e.getKey(), e.getValue().size());
        }
        return new Report(violations, anomalies, stats);
    }

    private static String firstDifference(Map<String, List<Installed>> a, Map<String, List<Installed>> b) {
        for (String key : a.keySet()) {
            List<Installed> x = a.get(key);
            List<Installed> y = b.getOrDefault(key, List.of());
            for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
                Installed u = i < x.size() ? x.get(i) : null;
                Installed v = i < y.size() ? y.get(i) : null;
                if (!Objects.equals(u, v)) {
                    return key + " at position " + i + ": " + u + " vs " + v;
                }
            }
        }
        return "keys " + a.keySet() + " vs " + b.keySet();
    }

    private static String abbreviate(String s) {
        String oneLine = s.replace('\n', ' ');
        return oneLine.length() <= 120 ? oneLine : oneLine.substring(0, 117) + "...";
    }
}
