package io.lodestar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lodestar.it.HistoryChecker.HistoryEntry;
import io.lodestar.it.HistoryChecker.Installed;
import io.lodestar.it.HistoryChecker.Kind;
import io.lodestar.it.HistoryChecker.Op;
import io.lodestar.it.HistoryChecker.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker flags each kind of violation on a small hand-made history, and nothing on a correct one. */
class HistoryCheckerTest {
    private final List<Op> ops = new ArrayList<>();

    private Op op(
            Kind kind,
            String node,
            String value,
            String expected,
            long invoke,
            long complete,
            Outcome outcome,
            int status) {
        Op op = new Op(ops.size() + 1, "c", kind, "k", node, value, expected, invoke, complete, outcome, status, "");
        ops.add(op);
        return op;
    }

    private Op write(String value, long invoke, long complete) {
        return op(Kind.WRITE, "n0", value, null, invoke, complete, Outcome.OK, 200);
    }

    private Op read(String node, String value, long invoke, long complete) {
        return op(Kind.READ, node, value, null, invoke, complete, Outcome.OK, value == null ? 404 : 200);
    }

    private static Map<String, List<Installed>> order(String... values) {
        List<Installed> seq = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            seq.add(new Installed(10 + i, values[i]));
        }
        return Map.of("k", seq);
    }

    private HistoryChecker.Report check(Map<String, List<Installed>> order, String finalValue) {
        Map<String, Map<String, List<Installed>>> byNode = new LinkedHashMap<>();
        byNode.put("n0", order);
        byNode.put("n1", order);
        return HistoryChecker.check(ops, byNode, Map.of("n0", Map.of("k", finalValue), "n1", Map.of("k", finalValue)));
    }

    private static void assertFlags(HistoryChecker.Report report, String rule) {
        assertTrue(
                report.violations().stream().anyMatch(v -> v.startsWith("[" + rule)),
                "expected a [" + rule + "] violation, got " + report.violations());
    }

    @Test
    void aCorrectHistoryHasNoViolation() {
        write("a", 0, 10);
        op(Kind.CAS, "n1", "b", "a", 20, 30, Outcome.OK, 200);
        op(Kind.CAS, "n1", "x", "a", 21, 31, Outcome.FAIL, 409);
        read("n1", "a", 15, 16); // a follower may lag: stale, but allowed
        read("n1", "b", 35, 36);
        read("n0", "a", 40, 41); // n0 never saw b: still allowed
        op(Kind.WRITE, "n2", "c", null, 50, 60, Outcome.INFO, 504);
        HistoryChecker.Report report = check(order("a", "b"), "b");
        assertEquals(List.of(), report.violations());
        assertEquals(1, report.stats().get("READ stale (allowed: reads are local)"));
    }

    @Test
    void flagsALostAcknowledgedWrite() {
        write("a", 0, 10);
        write("b", 20, 30);
        assertFlags(check(order("a"), "a"), "2 ");
    }

    @Test
    void flagsAFailedWriteThatTookEffect() {
        write("a", 0, 10);
        op(Kind.WRITE, "n1", "b", null, 20, 30, Outcome.FAIL, 503);
        assertFlags(check(order("a", "b"), "b"), "3 ");
    }

    @Test
    void flagsAWriteAppliedTwiceAndAValueNobodyWrote() {
        write("a", 0, 10);
        assertFlags(check(order("a", "a"), "a"), "4 no duplicates");
        assertFlags(check(order("a", "z"), "z"), "4 no phantoms");
    }

    @Test
    void flagsAWriteOrderedBeforeOneAcknowledgedBeforeItWasSent() {
        write("a", 0, 10);
        write("b", 20, 30);
        assertFlags(check(order("b", "a"), "a"), "5 ");
    }

    @Test
    void flagsACompareAndPublishInstalledOverAnotherValueAndTwoFromTheSameValue() {
        write("a", 0, 10);
        write("b", 20, 30);
        op(Kind.CAS, "n1", "c", "a", 40, 50, Outcome.OK, 200);
        assertFlags(check(order("a", "b", "c"), "c"), "6 ");

        ops.clear();
        write("a", 0, 10);
        op(Kind.CAS, "n1", "b", "a", 20, 30, Outcome.OK, 200);
        op(Kind.CAS, "n2", "c", "a", 20, 30, Outcome.OK, 200);
        assertFlags(check(order("a", "b", "c"), "c"), "6 ");
    }

    @Test
    void flagsReadsOfUnwrittenValuesFromTheFutureAndGoingBackwards() {
        write("a", 0, 10);
        op(Kind.WRITE, "n1", "f", null, 12, 14, Outcome.FAIL, 503);
        read("n1", "f", 15, 16);
        assertFlags(check(order("a"), "a"), "7 ");

        ops.clear();
        write("a", 0, 10);
        read("n1", null, 15, 16);
        assertFlags(check(order("a"), "a"), "7 ");

        ops.clear();
        write("a", 0, 10);
        read("n1", "b", 15, 16);
        write("b", 20, 30);
        assertFlags(check(order("a", "b"), "b"), "8 ");

        ops.clear();
        write("a", 0, 10);
        write("b", 20, 30);
        read("n1", "b", 35, 36);
        read("n1", "a", 40, 41);
        assertFlags(check(order("a", "b"), "b"), "9 ");

        ops.clear();
        write("a", 0, 10);
        write("b", 20, 30); // acknowledged by n0
        read("n0", "a", 40, 41);
        assertFlags(check(order("a", "b"), "b"), "9 ");
    }

    @Test
    void flagsNodesThatDisagreeOrDoNotConvergeAndUnclearErrors() {
        write("a", 0, 10);
        write("b", 20, 30);
        Map<String, Map<String, List<Installed>>> byNode = new LinkedHashMap<>();
        byNode.put("n0", order("a", "b"));
        byNode.put("n1", order("a"));
        assertFlags(HistoryChecker.check(ops, byNode, Map.of()), "1 ");
        assertFlags(check(order("a", "b"), "a"), "10 ");

        op(Kind.WRITE, "n1", "c", null, 40, 50, Outcome.INFO, 500);
        assertFlags(check(order("a", "b"), "b"), "11 ");
    }

    @Test
    void reportsAFalseConflictAsAnAnomaly() {
        write("a", 0, 10);
        op(Kind.CAS, "n1", "b", "a", 20, 30, Outcome.FAIL, 409);
        HistoryChecker.Report report = check(order("a"), "a");
        assertEquals(List.of(), report.violations());
        assertEquals(1, report.anomalies().size(), report.anomalies().toString());
    }

    @Test
    void rebuildsTheOrderFromTheServersHistoryEntries() {
        Map<String, String> values = Map.of(ConfigApi.md5("a"), "a", ConfigApi.md5("b"), "b", ConfigApi.md5("c"), "c");
        List<HistoryEntry> entries = List.of(
                new HistoryEntry(12, "U", ConfigApi.md5("b")),
                new HistoryEntry(10, "I", ConfigApi.md5("a")),
                new HistoryEntry(11, "U", ConfigApi.md5("a")));
        assertEquals(
                List.of(new Installed(10, "a"), new Installed(11, "b"), new Installed(12, "c")),
                HistoryChecker.installedOrder(entries, ConfigApi.md5("c"), values));
    }
}
