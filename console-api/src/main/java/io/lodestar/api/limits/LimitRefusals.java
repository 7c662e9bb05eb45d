package io.lodestar.api.limits;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many requests and connections each {@link Limit} refused since start: made first by the
 * composition root and handed to everything that enforces a limit, and read by the metrics. Any
 * thread.
 */
public final class LimitRefusals {
    private final Map<Limit, LongAdder> counts = new EnumMap<>(Limit.class);

    public LimitRefusals() {
        for (Limit l : Limit.values()) {
            counts.put(l, new LongAdder());
        }
    }

    public void refused(Limit limit) {
        counts.get(limit).increment();
    }

    public long count(Limit limit) {
        return counts.get(limit).sum();
    }
}
