package io.lodestar.kv.cluster;

/** Whether this node should serve reads: it knows a leader and has caught up with it. */
public record Readiness(boolean ready, String reason) {}
