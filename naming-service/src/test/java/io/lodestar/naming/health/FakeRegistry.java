package io.lodestar.naming.health;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry side of the checker in memory: lists its targets and stores flips like the real
 * registry would (unless told to drop them), recording every flip it is asked for.
 */
final class FakeRegistry implements ProbeTargets, HealthSink {
    /** One call of {@link #flip}, and when it came. */
    record Flip(String id, boolean healthy, long atNanos) {
        @Override
        public String toString() {
            return id + (healthy ? "->healthy" : "->unhealthy");
        }
    }

    private final Map<String, ProbeTarget> targets = new LinkedHashMap<>();
    private final List<Flip> flips = new ArrayList<>();
    private int listings;
    private boolean dropFlips;

    synchronized FakeRegistry put(ProbeTarget target) {
        targets.put(target.id(), target);
        return this;
    }

    synchronized void remove(String id) {
        targets.remove(id);
    }

    /** When set, flips are recorded but not stored (a write that never lands). */
    synchronized void dropFlips(boolean drop) {
        dropFlips = drop;
    }

    synchronized boolean healthy(String id) {
        return targets.get(id).healthy();
    }

    synchronized List<Flip> flips() {
        return List.copyOf(flips);
    }

    /** The flips so far as "id->healthy" strings, in order. */
    synchronized List<String> flipNames() {
        return flips.stream().map(Flip::toString).toList();
    }

    synchronized int listings() {
        return listings;
    }

    @Override
    public synchronized Collection<ProbeTarget> current() {
        listings++;
        return new ArrayList<>(targets.values());
    }

    @Override
    public synchronized void flip(String targetId, boolean healthy) {
        flips.add(new Flip(targetId, healthy, System.nanoTime()));
        ProbeTarget t = targets.get(targetId);
        if (t != null && !dropFlips) {
            targets.put(targetId, new ProbeTarget(t.id(), t.ip(), t.port(), healthy, t.settings()));
        }
    }
}
