package io.lodestar.naming.health;

/**
 * Where the {@link HealthChecker} reports status changes: implemented by the registry, which
 * stores the instance's new health (for persistent instances, a write through the kv-store).
 *
 * <p>Called on the checker's scheduler thread, only on the leader, and only when the probes
 * disagree with the health the target was last listed with ({@link ProbeTarget#healthy}) for the
 * configured number of results in a row. It must not block: start the write and return. If the
 * stored health has not changed a few probe intervals later (the write failed, or leadership
 * moved), the checker calls again, so an implementation need not retry, and a repeated call for
 * a status already stored must be harmless. The checker never asks to delete anything; an
 * exception thrown here is logged and the checker carries on.
 */
@FunctionalInterface
public interface HealthSink {
    /** The target {@code targetId} should now be stored as {@code healthy}. */
    void flip(String targetId, boolean healthy);
}
