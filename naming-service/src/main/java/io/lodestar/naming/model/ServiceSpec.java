package io.lodestar.naming.model;

import io.lodestar.error.InvalidRequestException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an operator sets on a service: the protect threshold (0..1, see {@code NamingService#list}),
 * service metadata, and per-cluster health-check settings. A cluster without settings here is
 * probed with {@link HealthCheckSettings#DEFAULT}.
 *
 * <p>Immutable; metadata keeps its order, clusters are sorted by name.
 */
public record ServiceSpec(
        double protectThreshold, Map<String, String> metadata, Map<String, HealthCheckSettings> clusters) {
    public static final ServiceSpec DEFAULT = new ServiceSpec(0, Map.of(), Map.of());

    public ServiceSpec {
        if (Double.isNaN(protectThreshold) || protectThreshold < 0 || protectThreshold > 1) {
            throw new InvalidRequestException("protectThreshold", protectThreshold + " is not between 0 and 1");
        }
        metadata = metadata == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        NamingValidation.checkMetadata("metadata", metadata);
        TreeMap<String, HealthCheckSettings> sorted = new TreeMap<>();
        if (clusters != null) {
            for (Map.Entry<String, HealthCheckSettings> e : clusters.entrySet()) {
                NamingValidation.checkCluster("clusterName", e.getKey());
                if (e.getValue() == null) {
                    throw new InvalidRequestException("healthChecker", "cluster " + e.getKey() + " has no settings");
                }
                sorted.put(e.getKey(), e.getValue());
            }
        }
        clusters = Collections.unmodifiableMap(sorted);
    }

    /** The health-check settings of {@code cluster}: its own, else the default. */
    public HealthCheckSettings settingsFor(String cluster) {
        return clusters.getOrDefault(cluster, HealthCheckSettings.DEFAULT);
    }

    public ServiceSpec withCluster(String cluster, HealthCheckSettings settings) {
        Map<String, HealthCheckSettings> copy = new TreeMap<>(clusters);
        copy.put(cluster, settings);
        return new ServiceSpec(protectThreshold, metadata, copy);
    }

    public ServiceSpec withProtectThreshold(double threshold) {
        return new ServiceSpec(threshold, metadata, clusters);
    }

    public ServiceSpec withMetadata(Map<String, String> m) {
        return new ServiceSpec(protectThreshold, m, clusters);
    }
}
