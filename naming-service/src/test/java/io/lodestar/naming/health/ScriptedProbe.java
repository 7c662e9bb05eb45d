package io.lodestar.naming.health;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/** A probe answering from a queue of outcomes, UNKNOWN once it runs dry; counts its calls and records their targets. */
final class ScriptedProbe implements Probe {
    private final Deque<ProbeResult.Outcome> script = new ArrayDeque<>();
    private final java.util.List<InetSocketAddress> targets = new java.util.ArrayList<>();
    private int calls;

    synchronized java.util.List<InetSocketAddress> targets() {
        return java.util.List.copyOf(targets);
    }

    synchronized void then(ProbeResult.Outcome... outcomes) {
        script.addAll(java.util.List.of(outcomes));
    }

    synchronized int calls() {
        return calls;
    }

    synchronized int left() {
        return script.size();
    }

    @Override
    public synchronized CompletableFuture<ProbeResult> probe(InetSocketAddress target, ProbeSettings settings) {
        calls++;
        targets.add(target);
        ProbeResult.Outcome next = script.poll();
        return CompletableFuture.completedFuture(
                new ProbeResult(next == null ? ProbeResult.Outcome.UNKNOWN : next, "scripted"));
    }

    @Override
    public void close() {}
}
