package io.lodestar.naming;

import io.lodestar.naming.model.HealthCheckSettings;
import io.lodestar.naming.model.Instance;
import io.lodestar.naming.model.ServiceKey;

/** A persistent instance with how its cluster is probed: what a health checker needs to probe it. */
public record PersistentInstance(ServiceKey service, Instance instance, HealthCheckSettings healthCheck) {}
