package io.lodestar.api.balance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one balancing round decides for one node, from the loads the members reported: a pure
 * function, so every node decides the same from the same numbers.
 *
 * <p>The rule: among the ready members, {@code share} is the connections each would hold if even,
 * {@code ceil(total / members)}; a node is over when it holds more than {@code threshold}, the
 * larger of {@code share * (1 + slack)} (rounded down) and {@code share + minExcess}. A node over
 * it moves its excess down to {@code share}, round after round ({@code draining}: it moved some last
 * round, so it goes on while it holds more than {@code share}; stopping at the threshold would leave
 * the members it filled well below the others), to the members below {@code share}, each at most what it
 * lacks, in proportion to what it lacks (so that two loaded nodes deciding at once fill the
 * emptiest members together rather than both flooding the one emptiest), at most {@code budget} a
 * round. A node that is not ready, or not among the loads, moves nothing; a member that is not
 * ready is neither counted nor sent to.
 */
public record BalancePlan(int share, int threshold, int held, List<Move> moves) {
    /** Send {@code count} clients to {@code target}. */
    public record Move(MemberLoad target, int count) {}

    /** How many clients the plan sends away. */
    public int moving() {
        return moves.stream().mapToInt(Move::count).sum();
    }

    /** Whether this node holds more than the threshold. */
    public boolean over() {
        return held > threshold;
    }

    /**
     * @param self this node's Raft address, as in {@code loads}
     * @param loads every member that reported, this node included
     * @param budget the most clients to send away this round
     * @param draining whether this node moved clients last round: then it goes on down to the share
     */
    public static BalancePlan decide(
            String self, List<MemberLoad> loads, int slackPercent, int minExcess, int budget, boolean draining) {
        MemberLoad own =
                loads.stream().filter(l -> l.member().equals(self)).findFirst().orElse(null);
        List<MemberLoad> ready = loads.stream().filter(MemberLoad::ready).toList();
        if (own == null || !own.ready()) {
            return new BalancePlan(0, 0, own == null ? 0 : own.connections(), List.of());
        }
        long total = ready.stream().mapToLong(MemberLoad::connections).sum();
        int share = (int) ((total + ready.size() - 1) / ready.size());
        int threshold = (int) Math.max((long) share * (100 + slackPercent) / 100, (long) share + minExcess);
        if (own.connections() <= (draining ? share : threshold) || budget <= 0) {
            return new BalancePlan(share, threshold, own.connections(), List.of());
        }
        List<MemberLoad> under = ready.stream()
                .filter(l -> !l.member().equals(self) && l.connections() < share)
                .sorted(Comparator.comparingInt(MemberLoad::connections).thenComparing(MemberLoad::member))
                .toList();
        long lacking = under.stream().mapToLong(l -> share - l.connections()).sum();
        int toMove = (int) Math.min(Math.min(own.connections() - share, lacking), budget);
        return new BalancePlan(share, threshold, own.connections(), split(toMove, under, share, lacking));
    }

    /** {@code toMove} over {@code under} in proportion to what each lacks, largest remainders first. */
    private static List<Move> split(int toMove, List<MemberLoad> under, int share, long lacking) {
        int[] counts = new int[under.size()];
        long[] remainders = new long[under.size()];
        int given = 0;
        for (int i = 0; i < under.size(); i++) {
            long scaled = (long) toMove * (share - under.get(i).connections());
            counts[i] = (int) (scaled / lacking);
            remainders[i] = scaled % lacking;
            given += counts[i];
        }
        // the remainders' order; ties to the emptier member (under is sorted so)
        List<Integer> byRemainder = new ArrayList<>();
        for (int i = 0; i < under.size(); i++) {
            byRemainder.add(i);
        }
        byRemainder.sort(Comparator.comparingLong((Integer i) -> remainders[i]).reversed());
        for (int k = 0; given < toMove && k < byRemainder.size(); k++) {
            counts[byRemainder.get(k)]++;
            given++;
        }
        List<Move> moves = new ArrayList<>();
        for (int i = 0; i < under.size(); i++) {
            if (counts[i] > 0) {
                moves.add(new Move(under.get(i), counts[i]));
            }
        }
        return moves;
    }
}
