/**
 * Server-side health checks of persistent instances: the leader probes each instance's address
 * (TCP connect or HTTP GET) and reports status flips to the registry, which stores them.
 *
 * <p>Ephemeral instances are kept alive by their clients' heartbeats, not here. This package
 * talks to the registry only through {@link io.lodestar.naming.health.ProbeTargets} (what to
 * probe) and {@link io.lodestar.naming.health.HealthSink} (what changed); it never removes an
 * instance.
 */
package io.lodestar.naming.health;
