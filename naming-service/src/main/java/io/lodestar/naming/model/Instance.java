package io.lodestar.naming.model;

import io.lodestar.error.InvalidRequestException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One registered endpoint of a service. Immutable; every constructed instance is valid:
 *
 * <ul>
 *   <li>ip, port and cluster follow {@link NamingValidation}; a blank cluster is {@value #DEFAULT_CLUSTER};
 *   <li>weight is clamped as Nacos does: above {@value #MAX_WEIGHT} to {@value #MAX_WEIGHT}, below
 *       0 to 0, and between 0 and {@value #MIN_POSITIVE_WEIGHT} up to {@value #MIN_POSITIVE_WEIGHT}.
 *       0 itself stays: Nacos clients skip weight-0 instances, operators use it to drain one; NaN is
 *       rejected;
 *   <li>metadata is an unmodifiable copy in the given order; null values are dropped (Nacos does the
 *       same), null keys rejected; its heartbeat keys must parse ({@link HeartbeatSettings#of}).
 * </ul>
 *
 * <p>{@code instanceId} null means Nacos's default id {@code ip#port#cluster#group@@service}
 * ({@link #defaultId}, {@link #idIn}): the registry keeps ephemeral instances that way, so a
 * read may hand out an instance without an id; persistent ones are stored with theirs.
 */
public record Instance(
        String instanceId,
        String ip,
        int port,
        double weight,
        boolean enabled,
        boolean healthy,
        boolean ephemeral,
        String cluster,
        Map<String, String> metadata) {
    public static final String DEFAULT_CLUSTER = "DEFAULT";
    public static final double MAX_WEIGHT = 10_000;
    public static final double MIN_POSITIVE_WEIGHT = 0.01;

    public Instance {
        cluster = cluster == null || cluster.isBlank() ? DEFAULT_CLUSTER : SharedNames.canonical(cluster);
        NamingValidation.checkIp(ip);
        NamingValidation.checkPort(port);
        NamingValidation.checkCluster("clusterName", cluster);
        weight = clampWeight(weight);
        metadata = copyMetadata(metadata);
        NamingValidation.checkMetadata("metadata", metadata);
        HeartbeatSettings.of(metadata);
        instanceId = instanceId == null || instanceId.isBlank() ? null : instanceId;
    }

    /** A healthy, enabled, ephemeral instance of weight 1 in the default cluster, without metadata. */
    public static Instance of(String ip, int port) {
        return new Instance(null, ip, port, 1.0, true, true, true, DEFAULT_CLUSTER, Map.of());
    }

    /** Nacos's default instance id: {@code ip#port#cluster#group@@service}. */
    public static String defaultId(ServiceKey service, InstanceAddress address) {
        return address.ip() + "#" + address.port() + "#" + address.cluster() + "#" + service.groupedName();
    }

    public InstanceAddress address() {
        return new InstanceAddress(cluster, ip, port);
    }

    public HeartbeatSettings heartbeat() {
        return HeartbeatSettings.of(metadata);
    }

    public Instance withInstanceId(String id) {
        return new Instance(id, ip, port, weight, enabled, healthy, ephemeral, cluster, metadata);
    }

    /** The instance's id in {@code service}: its own, or the default one when it has none. */
    public String idIn(ServiceKey service) {
        return instanceId != null ? instanceId : defaultId(service, address());
    }

    /**
     * This instance without its id if the id is the default one (as {@link #defaultId} derives it
     * again): the form the registry holds, since a stored default id would be the largest part
     * of an ephemeral instance's footprint. Readers render a null id as the default.
     */
    public Instance withoutDefaultId(ServiceKey service) {
        return instanceId != null && instanceId.equals(defaultId(service, address())) ? withInstanceId(null) : this;
    }

    /** This instance with its id set to the default if it has none. */
    public Instance withDefaultId(ServiceKey service) {
        return instanceId != null ? this : withInstanceId(defaultId(service, address()));
    }

    public Instance withWeight(double w) {
        return new Instance(instanceId, ip, port, w, enabled, healthy, ephemeral, cluster, metadata);
    }

    public Instance withEnabled(boolean e) {
        return new Instance(instanceId, ip, port, weight, e, healthy, ephemeral, cluster, metadata);
    }

    public Instance withHealthy(boolean h) {
        return h == healthy
                ? this
                : new Instance(instanceId, ip, port, weight, enabled, h, ephemeral, cluster, metadata);
    }

    public Instance withEphemeral(boolean e) {
        return new Instance(instanceId, ip, port, weight, enabled, healthy, e, cluster, metadata);
    }

    public Instance withCluster(String c) {
        return new Instance(instanceId, ip, port, weight, enabled, healthy, ephemeral, c, metadata);
    }

    public Instance withMetadata(Map<String, String> m) {
        return new Instance(instanceId, ip, port, weight, enabled, healthy, ephemeral, cluster, m);
    }

    /** Nacos's weight rule; see the class comment. */
    public static double clampWeight(double weight) {
        if (Double.isNaN(weight)) {
            throw new InvalidRequestException("weight", "is not a number");
        }
        if (weight > MAX_WEIGHT) {
            return MAX_WEIGHT;
        }
        if (weight < 0) {
            return 0;
        }
        if (weight > 0 && weight < MIN_POSITIVE_WEIGHT) {
            return MIN_POSITIVE_WEIGHT;
        }
        return weight;
    }

    private static Map<String, String> copyMetadata(Map<String, String> metadata) {
        if (metadata == null || metadata.isEmpty()) {
            return Map.of();
        }
        LinkedHashMap<String, String> copy = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            if (e.getKey() == null) {
                throw new InvalidRequestException("metadata", "keys must not be null");
            }
            if (e.getValue() != null) {
                copy.put(e.getKey(), e.getValue());
            }
        }
        return Collections.unmodifiableMap(copy);
    }
}
