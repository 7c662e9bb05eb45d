package io.lodestar.naming.health;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;

/** A probe answering from a queue of outcomes, UNKNOWN once it runs dry; counts its calls. */
final class ScriptedProbe implements Probe {
    private final Deque<ProbeResult.Outcome> script = new ArrayDeque<>();
    private int calls;

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
    public synchronized CompletableFuture<ProbeResult> probe(String host, int port, ProbeSettings settings) {
        calls++;
        ProbeResult.Outcome next = script.poll();
        return CompletableFuture.completedFuture(new ProbeResult(next == null ? ProbeResult.Outcome.UNKNOWN : next,
                "scripted"));
    }

    @Override
    public void close() {
    }
}
