package io.lodestar.naming.dns;

import java.util.List;

/**
 * SRV weights (1..65535) for instances with Nacos weights (0.01..10000).
 *
 * <p>A client picks among same-priority SRV records with probability proportional to weight
 * (RFC 2782), so only the ratios within one answer matter. Each weight is therefore scaled
 * against the largest in the answer: the heaviest instance gets 65535 and the others their
 * share of it, rounded, at least 1 ({@code max(1, round(w / max × 65535))}). Ratios are kept to
 * within 1/65535 of the largest weight: 1 : 1.5 : 2 stays 32768 : 49151 : 65535. Only an
 * instance lighter than 1/131070 of the heaviest is raised to 1 (which, with RFC 2782's
 * weight-0 rule in mind, still lets it be picked now and then rather than never).
 */
final class SrvWeights {
    static final int MAX = 65_535;

    private SrvWeights() {}

    /** The SRV weight of each of {@code weights} (all positive), in order. */
    static int[] of(List<Double> weights) {
        double max = 0;
        for (double w : weights) {
            max = Math.max(max, w);
        }
        int[] scaled = new int[weights.size()];
        for (int i = 0; i < scaled.length; i++) {
            long w = Math.round(weights.get(i) / max * MAX);
            scaled[i] = (int) Math.max(1, Math.min(MAX, w));
        }
        return scaled;
    }
}
