package io.lodestar.api.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The balancing decision: counts in, how many to move and where out. */
class BalancePlanTest {
    private static final int SLACK = 20;
    private static final int MIN_EXCESS = 10;
    private static final int NO_BUDGET_CAP = Integer.MAX_VALUE;

    private static MemberLoad member(String name, int connections) {
        return new MemberLoad(name, name + ":8848", connections, true);
    }

    private static MemberLoad notReady(String name, int connections) {
        return new MemberLoad(name, name + ":8848", connections, false);
    }

    private static Map<String, Integer> moves(BalancePlan plan) {
        Map<String, Integer> out = new LinkedHashMap<>();
        plan.moves().forEach(m -> out.put(m.target().member(), m.count()));
        return out;
    }

    @Test
    void afterARestartEachLoadedNodeSendsItsExcessToTheEmptyOne() {
        List<MemberLoad> loads = List.of(member("a", 150), member("b", 150), member("c", 0));
        BalancePlan a = BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false);
        assertEquals(100, a.share());
        assertEquals(120, a.threshold());
        assertEquals(Map.of("c", 50), moves(a));
        assertEquals(Map.of("c", 50), moves(BalancePlan.decide("b", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false)));
        assertEquals(Map.of(), moves(BalancePlan.decide("c", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false)));
    }

    @Test
    void aNodeWithinTheThresholdMovesNothing() {
        List<MemberLoad> loads = List.of(member("a", 120), member("b", 90), member("c", 90));
        BalancePlan a = BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false);
        assertEquals(100, a.share());
        assertFalse(a.over());
        assertEquals(0, a.moving());
        BalancePlan over = BalancePlan.decide(
                "a",
                List.of(member("a", 121), member("b", 90), member("c", 89)),
                SLACK,
                MIN_EXCESS,
                NO_BUDGET_CAP,
                false);
        assertTrue(over.over());
        assertEquals(Map.of("b", 10, "c", 11), moves(over), "down to the share, each target at most what it lacks");
    }

    @Test
    void theMinimumExcessKeepsSmallCountsStill() {
        // share 4: 20 % of it is under one connection; the minimum excess decides
        List<MemberLoad> loads = List.of(member("a", 12), member("b", 0), member("c", 0));
        BalancePlan a = BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false);
        assertEquals(4, a.share());
        assertEquals(14, a.threshold());
        assertEquals(0, a.moving());
        BalancePlan more = BalancePlan.decide(
                "a", List.of(member("a", 17), member("b", 0), member("c", 0)), SLACK, MIN_EXCESS, NO_BUDGET_CAP, false);
        assertEquals(6, more.share());
        assertEquals(16, more.threshold());
        assertEquals(Map.of("b", 6, "c", 5), moves(more), "the odd one to the first of equals");
    }

    @Test
    void theBudgetCapsARoundAndIsSplitByWhatEachLacks() {
        List<MemberLoad> loads = List.of(member("a", 300), member("b", 0), member("c", 60), member("d", 40));
        BalancePlan a = BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, 10, false);
        assertEquals(100, a.share());
        assertEquals(10, a.moving());
        // b lacks 100, c 40, d 60: 10 * 100/200, 10 * 40/200, 10 * 60/200
        assertEquals(Map.of("b", 5, "c", 2, "d", 3), moves(a));
        assertEquals(
                0, BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, 0, false).moving());
    }

    @Test
    void remaindersGoToTheEmptierMembersAndNeverPastWhatTheyLack() {
        List<MemberLoad> loads = List.of(member("a", 200), member("b", 99), member("c", 1));
        // share 100; b lacks 1, c 99; a has 100 over the share but only 100 are lacking
        BalancePlan a = BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, 7, false);
        assertEquals(7, a.moving());
        assertEquals(Map.of("c", 7), moves(a));
        assertEquals(
                Map.of("b", 1, "c", 99),
                moves(BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false)));
    }

    @Test
    void nothingGoesToAMemberThatIsNotReadyAndItIsNotCounted() {
        List<MemberLoad> loads = List.of(member("a", 150), member("b", 150), notReady("c", 0));
        BalancePlan a = BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false);
        assertEquals(150, a.share(), "the even share of the ready members");
        assertEquals(0, a.moving());
    }

    @Test
    void aNodeThatIsNotReadyOrDidNotReportMovesNothing() {
        List<MemberLoad> loads = List.of(notReady("a", 300), member("b", 0), member("c", 0));
        assertEquals(
                0,
                BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false)
                        .moving());
        assertEquals(
                0,
                BalancePlan.decide("x", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false)
                        .moving());
    }

    @Test
    void twoLoadedNodesDecidingAtOnceFillTheEmptyOnesWithoutOverfillingOne() {
        List<MemberLoad> loads = List.of(member("a", 200), member("b", 0), member("c", 0), member("d", 200));
        Map<String, Integer> arriving = new LinkedHashMap<>();
        for (String self : List.of("a", "d")) {
            moves(BalancePlan.decide(self, loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false))
                    .forEach((to, n) -> arriving.merge(to, n, Integer::sum));
        }
        assertEquals(Map.of("b", 100, "c", 100), arriving);
    }

    @Test
    void aNodeThatMovedLastRoundGoesOnDownToTheShare() {
        List<MemberLoad> loads = List.of(member("a", 115), member("b", 95), member("c", 90));
        assertEquals(
                0,
                BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, false)
                        .moving());
        assertEquals(
                Map.of("b", 5, "c", 10),
                moves(BalancePlan.decide("a", loads, SLACK, MIN_EXCESS, NO_BUDGET_CAP, true)),
                "started over the threshold: on to the share");
        assertEquals(
                0,
                BalancePlan.decide(
                                "a",
                                List.of(member("a", 100), member("b", 100), member("c", 100)),
                                SLACK,
                                MIN_EXCESS,
                                NO_BUDGET_CAP,
                                true)
                        .moving());
    }

    @Test
    void repeatedRoundsEvenTheCountsOut() {
        // the rounds simulated: every node decides on the same counts, its moves land before the next
        Map<String, Integer> counts = new LinkedHashMap<>(Map.of("a", 180, "b", 170, "c", 0, "d", 50));
        Map<String, Boolean> draining = new LinkedHashMap<>();
        for (int round = 0; round < 50; round++) {
            List<MemberLoad> loads = new ArrayList<>();
            counts.forEach((m, n) -> loads.add(member(m, n)));
            Map<String, Integer> next = new LinkedHashMap<>(counts);
            for (String self : counts.keySet()) {
                BalancePlan plan =
                        BalancePlan.decide(self, loads, SLACK, MIN_EXCESS, 10, draining.getOrDefault(self, false));
                draining.put(self, plan.moving() > 0);
                for (BalancePlan.Move move : plan.moves()) {
                    next.merge(self, -move.count(), Integer::sum);
                    next.merge(move.target().member(), move.count(), Integer::sum);
                }
            }
            counts = next;
        }
        assertEquals(400, counts.values().stream().mapToInt(Integer::intValue).sum(), "no client lost");
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            assertTrue(e.getValue() >= 90 && e.getValue() <= 110, e + " near the share of 100: " + counts);
        }
    }
}
