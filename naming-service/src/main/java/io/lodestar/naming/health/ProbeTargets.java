package io.lodestar.naming.health;

import io.lodestar.naming.model.CheckerType;
import java.util.Collection;

/**
 * What the {@link HealthChecker} probes: implemented by the registry.
 *
 * <p>Called on the checker's scheduler thread once per tick (a fraction of a second), and only
 * while this node leads. It must be quick and must not block: return a snapshot of this node's
 * in-memory view of the persistent instances, not a store scan or a remote call. Targets whose
 * settings say {@link CheckerType#NONE} may be included or left out; they are not probed.
 * A target that stops appearing is forgotten (its counters dropped); it is never reported.
 */
@FunctionalInterface
public interface ProbeTargets {
    /** The persistent instances to check now, each with its currently stored health. */
    Collection<ProbeTarget> current();
}
